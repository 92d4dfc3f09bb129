/**
 * Scenario 9: the connection is lost while a completion commits: a proxy between the worker and
 * PostgreSQL passes the completion statement on to the server and then cuts the connection, so
 * the worker cannot know whether it committed. The worker writes it again (fenced by the claim):
 * either the first write had committed and the second is refused, or the second commits. One
 * completion per step, never two.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { urlNamed, useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { allRunsTerminal, runningSteps, stepCounts } from '../support/invariants.js';
import { logLines } from '../support/log-lines.js';
import { eventually } from '../support/poll.js';
import { FixtureSet } from '../support/processes.js';
import { startScheduler } from '../support/scheduler.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { trials } from '../support/trials.js';
import { startWorker } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
let proxy: TcpProxy;
beforeAll(async () => {
  proxy = await TcpProxy.start(Number(new URL(db.url).port || 5432), new URL(db.url).hostname);
});
afterEach(() => fixtures.killAll());
afterAll(() => proxy?.close());

/** The completion statement's prepared name, sent with every execution of it. */
const completionStatement = 'cyclone:complete-steps';

it('records one completion per step when connections are cut during the completion commit', async () => {
  const cuts = trials(10, 2);
  const scheduler = await startScheduler(db.url, { interval: '200ms' });
  try {
    const worker = await startWorker(fixtures, db.url, {
      id: 'ambiguous',
      url: urlNamed(proxy.urlFor(db.url), 'ambiguous'),
      lease: '10s',
      concurrency: 2,
      workMs: '5-30',
    });
    let cut = 0;
    proxy.cutAfter(completionStatement, cuts, () => cut++);
    const jobs = await db.client.enqueueMany(
      'fault.work',
      Array.from({ length: cuts * 3 }, (_, i) => ({ i })),
    );
    const runIds = jobs.map((j) => j.runId);
    // The proxy counts a cut once it has closed the connection, a moment after the statement
    // reached the server: when the last cut is of the last completion, every run can have ended
    // before the count moves, so both are waited for.
    await eventually(
      async () => cut === cuts && (await allRunsTerminal(db.pool, runIds)),
      'every cut to be made and every run to end',
      120_000,
      200,
    );

    const counts = await stepCounts(db.pool, runIds);
    const lines = logLines(worker);
    const refusedRepeats = lines.filter((l) =>
      String(l.msg).startsWith('stale completion dropped'),
    ).length;
    const rewrites = lines.filter((l) =>
      String(l.msg).startsWith('recording an outcome met a transient'),
    ).length;
    reportFigures('ambiguous-commit', {
      cuts: cut,
      steps: counts.steps,
      rewrites,
      first_write_had_committed: refusedRepeats,
      double: counts.doubleCompleted,
      duplicate_exec: counts.duplicateExecutions,
    });

    expect(cut).toBe(cuts);
    expect(counts.byState).toEqual({ completed: runIds.length });
    expect(counts.doubleCompleted).toBe(0);
    expect(counts.completedWithoutEvent).toBe(0);
    expect(await runningSteps(db.pool)).toBe(0);
    await expectEventsFollowTable(db.pool);
  } finally {
    await scheduler.stop();
  }
});
