/**
 * Scenario 2: a worker is killed after its handler's side effect and before the completion
 * commits. The step is retried (at-least-once: the side effect happens twice) and its completion
 * is recorded once.
 *
 * Two ways of landing in that window, alternately: (a) deterministic: the test holds the step's
 * row lock, lets the handler return, waits until the worker's completion statement waits for that
 * lock, kills the worker, and releases the lock only after the dead worker's session is gone;
 * (b) racing: the kill lands at a random offset just after the handler returned, before or after
 * the commit.
 */
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { urlNamed, useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { allRunsTerminal, runningSteps, stepCounts } from '../support/invariants.js';
import { delay, eventually, randomBetween } from '../support/poll.js';
import { FixtureSet } from '../support/processes.js';
import { startScheduler } from '../support/scheduler.js';
import { sessionsOf, terminateSessions } from '../support/sessions.js';
import { trials } from '../support/trials.js';
import { fixtureEvent, startWorker } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

it('retries a step whose worker died between its side effect and its commit, and records one completion', async () => {
  const count = trials(12, 2);
  const scheduler = await startScheduler(db.url, { interval: '200ms' });
  const locker = new pg.Client({ connectionString: urlNamed(db.url, 'fault-locker') });
  await locker.connect();
  let blockedKills = 0;
  let racingKills = 0;
  let serverNoticed = 0;
  const runIds: string[] = [];
  try {
    for (let t = 0; t < count; t++) {
      const id = `victim-${t}`;
      const victim = await startWorker(fixtures, db.url, { id, lease: '1s', concurrency: 2 });
      const { runId } = await db.client.enqueue('fault.hold', { holdBy: id }, { maxAttempts: 100 });
      runIds.push(runId);
      // The victim may also pick up a step an earlier trial left; this trial is about its own.
      const [{ id: stepId }] = (await db.query<{ id: string }>(
        'SELECT id FROM cyclone_steps WHERE run_id = $1',
        [runId],
      )) as [{ id: string }];
      await victim.line(fixtureEvent('effect', stepId), `${id} to record its side effect`);
      const blocked = t % 2 === 0;
      if (blocked) {
        await locker.query('BEGIN');
        await locker.query('SELECT id FROM cyclone_steps WHERE id = $1 FOR UPDATE', [stepId]);
        victim.send(`finish ${stepId}`);
        await victim.line(fixtureEvent('returning', stepId), `${id}'s handler to return`);
        await eventually(
          async () =>
            (await sessionsOf(db.pool, id)).some(
              // The completion statement (complete-steps), waiting for the row.
              (s) => s.waitEventType === 'Lock' && s.query.includes('output = c.output'),
            ),
          `${id}'s completion to wait for the row lock`,
        );
        await victim.kill();
        // The server notices a dead client only when it next talks to it: a session waiting for a
        // lock would still run (and commit) its statement once it gets the lock. That would be
        // harmless (fenced, and the step's owner still), but this trial is about the kill before
        // the commit, so the session ends here and its statement never runs.
        const gone = await eventually(
          async () => (await sessionsOf(db.pool, id)).length === 0,
          'the dead worker session to go',
          500,
        ).catch(() => false);
        if (gone) serverNoticed++;
        else await terminateSessions(db.pool, id);
        await eventually(
          async () => (await sessionsOf(db.pool, id)).length === 0,
          'the dead worker session to end',
        );
        await locker.query('ROLLBACK');
        blockedKills++;
      } else {
        victim.send(`finish ${stepId}`);
        await victim.line(fixtureEvent('returning', stepId), `${id}'s handler to return`);
        await delay(randomBetween(0, 15));
        await victim.kill();
        racingKills++;
      }
    }
    // A worker that does not hold picks up what the kills left.
    await startWorker(fixtures, db.url, { id: 'closer', lease: '1s', concurrency: 4 });
    await eventually(() => allRunsTerminal(db.pool, runIds), 'every run to end', 60_000, 200);

    const counts = await stepCounts(db.pool, runIds);
    const perStep = await db.query<{ effects: number; blocked: boolean }>(
      `SELECT count(e.id)::int AS effects FROM cyclone_steps s
       LEFT JOIN fault_effects e ON e.step_id = s.id
       WHERE s.run_id = ANY($1::uuid[]) GROUP BY s.id, s.created_at ORDER BY s.created_at`,
      [runIds],
    );
    const retried = perStep.filter((s) => s.effects > 1).length;
    reportFigures('kill-before-commit', {
      trials: count,
      blocked_kills: blockedKills,
      racing_kills: racingKills,
      retried,
      committed_before_kill: count - retried,
      double: counts.doubleCompleted,
      server_ended_dead_session: serverNoticed,
    });

    expect(counts.byState).toEqual({ completed: count });
    expect(counts.doubleCompleted).toBe(0);
    expect(counts.completedWithoutEvent).toBe(0);
    // Every deterministic trial (even index) was killed before its commit: it ran again (more
    // than twice when a later trial's kill hit the worker that retried it).
    perStep.forEach((step, index) => {
      if (index % 2 === 0) expect(step.effects).toBeGreaterThanOrEqual(2);
      else expect(step.effects).toBeGreaterThanOrEqual(1);
    });
    expect(await runningSteps(db.pool)).toBe(0);
    await expectEventsFollowTable(db.pool);
  } finally {
    await locker.end();
    await scheduler.stop();
  }
});
