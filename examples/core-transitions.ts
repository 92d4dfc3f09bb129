import { proposeStep, stepChange, StepState, StepTrigger } from '@cyclone/core';

console.log(proposeStep('completed', 'running', StepTrigger.Claim));
// { accepted: false, reason: 'terminal', message: '...' }

// What the store turns into `UPDATE ... WHERE state = ANY(from)`:
const claim = stepChange(StepTrigger.Claim, StepState.Running);
console.log(claim.from); // ['available']
