export { cycloneRuns } from './runs.js';
export { cycloneSteps } from './steps.js';
export { cycloneWorkflows } from './workflows.js';
export { cycloneSignals } from './signals.js';
export { cycloneEvents } from './events.js';
export { cycloneSchedules, OVERLAP_POLICIES } from './schedules.js';
export { cycloneLeaders } from './leases.js';
export { cycloneWorkers } from './workers.js';
export { cycloneSettlements } from './settlements.js';
