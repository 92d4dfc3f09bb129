/**
 * Fault scenario 1 through PgBouncer in transaction mode: worker processes SIGKILLed mid-step
 * again and again, the workers and the scheduler connecting through the pooler with
 * `pooler: 'transaction'` (polling: no listen URL). Every step still completes exactly once.
 */
import { afterEach, describe, it } from 'vitest';
import { useFaultDatabase } from '../support/database.js';
import { poolerUrl, throughPooler } from '../support/pooler.js';
import { FixtureSet } from '../support/processes.js';
import { sigkillMidStep } from '../support/sigkill-scenario.js';
import { trials } from '../support/trials.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

describe.skipIf(!poolerUrl)('SIGKILL mid-step through a transaction-mode pooler', () => {
  it('completes every step exactly once however often a worker is killed', async () => {
    await sigkillMidStep(db, fixtures, {
      scenario: 'sigkill-pooler',
      kills: trials(8),
      url: throughPooler(db.url),
      pooler: 'transaction',
    });
  });
});
