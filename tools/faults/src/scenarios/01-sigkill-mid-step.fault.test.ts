/**
 * Scenario 1: a worker process is SIGKILLed mid-step at random points, again and again, while a
 * second worker and the scheduler run. Every step ends completed with exactly one completion
 * recorded, and a killed worker's steps leave `running` once their lease expired and a sweep ran.
 */
import { afterEach, it } from 'vitest';
import { useFaultDatabase } from '../support/database.js';
import { FixtureSet } from '../support/processes.js';
import { sigkillMidStep } from '../support/sigkill-scenario.js';
import { trials } from '../support/trials.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

it('completes every step exactly once however often a worker is killed mid-step', async () => {
  await sigkillMidStep(db, fixtures, { scenario: 'sigkill', kills: trials(30) });
});
