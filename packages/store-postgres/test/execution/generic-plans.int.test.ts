/**
 * Every statement on runs and steps keeps its generic plan, and finds rows by a join (decision
 * 420). On tables partitioned by id a plan costs tens of milliseconds to make, and a statement
 * whose parameter lets the planner prune partitions (`id = $1`, `id = ANY($1)`) would get a plan
 * made for its values at every run: a pruned plan always looks cheaper than the generic one. So
 * the store's statements read every value through a scalar subquery, `(SELECT $n::type)`, which
 * the planner does not see into.
 *
 * These tests partition the test database's runs and steps by day, as the layout of decisions
 * 347-352 will, then drive a store on a pool of one connection through the worker's path (claim,
 * heartbeat, completion, retry, release, snooze, discard) more than five times, and read from
 * `pg_prepared_statements` (PostgreSQL 14 and later) how each named statement was planned: five
 * plans for the values, then the generic plan. The text of each statement is checked too: no
 * parameter outside a scalar subquery.
 */
import pg from 'pg';
import { ErrorKind } from '@cyclone/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store.js';
import { runOfJob } from '../../src/tables/runs/new-runs.js';
import type { ClaimedStep } from '../../src/contract/worker-store.js';
import { until, useStore } from '../fixture.js';
import { tableLayoutOfTests } from '../hot-and-history.js';
import { fillFinishedJobs, partitionRunsAndStepsByDay } from '../partition-by-day.js';

const fx = useStore();
// This file lays its database out by day itself: it runs on the layout every migration makes.
const onOneTable = tableLayoutOfTests() === 'one-table';

/** The worker's statements, each run more than five times below: all of them keep generic plans. */
const workerStatements = [
  'claim-steps',
  'heartbeat-steps',
  'complete-steps',
  'reschedule-step',
  'lock-run-of-step',
  'discard-step',
  'lock-settling-run',
  'load-run-nodes',
  'move-run',
];

const kind = 'plans.job';
const rounds = 7;
/** The kind of the jobs that are reclaimed, paused, resumed, cancelled and retried. */
const operatorKind = 'plans.operated';
/** The statements of those moves, each run more than five times: all keep generic plans. */
const operatorStatements = [
  'reclaim-expired-leases',
  'find-reclaim-limited',
  'pause-steps',
  'resume-steps',
  'lock-run',
  'end-run-steps',
  'find-cancel-causes',
  'retry-steps',
  'retry-child-nodes',
  'reopen-steps',
  'promote-ready',
];
/** The kind of the jobs whose claim and completion are explained. */
const probeKind = 'plans.probe';

let pool: pg.Pool;
let store: PostgresStore;
beforeAll(async () => {
  if (!onOneTable) return;
  // Submitted before the tables are partitioned: rows a deployment holds when it migrates.
  await fx.store.submit([
    ...Array.from({ length: rounds * 6 }, (_, i) => runOfJob(kind, String(i))),
    ...Array.from({ length: 3 }, (_, i) => runOfJob(probeKind, String(i))),
    ...Array.from({ length: rounds * 4 }, (_, i) => runOfJob(operatorKind, String(i))),
  ]);
  await partitionRunsAndStepsByDay(fx.pool);
  await fillFinishedJobs(fx.pool, 10, 5_000);
  pool = new pg.Pool({ connectionString: fx.db.url, max: 1 });
  store = new PostgresStore({ pool });
});
afterAll(async () => {
  await pool?.end();
});

interface Planned {
  readonly runs: number;
  readonly custom: number;
  readonly generic: number;
  readonly text: string;
}

/** How each of the store's named statements was planned on its one session so far. */
async function plans(): Promise<Map<string, Planned>> {
  const { rows } = await pool.query<{
    name: string;
    generic: string;
    custom: string;
    text: string;
  }>(
    `SELECT name, generic_plans AS generic, custom_plans AS custom, statement AS text
     FROM pg_prepared_statements WHERE name LIKE 'cyclone:%'`,
  );
  return new Map(
    rows.map((r) => [
      r.name.slice('cyclone:'.length),
      {
        runs: Number(r.generic) + Number(r.custom),
        custom: Number(r.custom),
        generic: Number(r.generic),
        text: r.text,
      },
    ]),
  );
}

/** The parameters of a statement's text that are not read through a scalar subquery. */
function bareParameters(text: string): string[] {
  return [...text.matchAll(/(\(SELECT )?\$\d+(::)?/g)]
    .filter((m) => m[1] === undefined || m[2] === undefined)
    .map((m) => m[0]);
}

/**
 * Each of `names` ran six times or more on the store's session, planned for its values five
 * times and then generically, and has no parameter outside a scalar subquery.
 */
async function expectGenericPlans(names: readonly string[]): Promise<void> {
  const planned = await plans();
  for (const name of names) {
    const p = planned.get(name);
    expect(p, name).toBeDefined();
    expect({ name, runs: p!.runs >= 6, custom: p!.custom, generic: p!.generic > 0 }).toEqual({
      name,
      runs: true,
      custom: 5,
      generic: true,
    });
    expect({ name, bare: bareParameters(p!.text) }).toEqual({ name, bare: [] });
  }
}

const held = (s: ClaimedStep) => ({ stepId: s.id, claimToken: s.claimToken });

/** Fails a claimed step with a permanent error: it is discarded, and its run fails. */
const failForGood = (s: ClaimedStep) =>
  store.fail({
    ...held(s),
    error: 'for good',
    panicStack: null,
    attempts: 0,
    maxAttempts: 3,
    errorKind: ErrorKind.Permanent,
    retryDelayMs: 0,
  });

/** Claims `n` steps of `ofKind` through the one-session store, failing if fewer come. */
async function claimSteps(ofKind: string, n: number): Promise<ClaimedStep[]> {
  const claimed = await store.claim({
    kinds: [ofKind],
    limit: n,
    workerId: 'plans',
    leaseMs: 60_000,
  });
  expect(claimed).toHaveLength(n);
  return claimed;
}

describe.skipIf(!onOneTable)('on runs and steps partitioned by day', () => {
  it('the worker path keeps generic plans after five runs of each statement', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const claimed = await claimSteps(kind, 5);
      const [done, retried, released, snoozed, discarded] = claimed as [
        ClaimedStep,
        ClaimedStep,
        ClaimedStep,
        ClaimedStep,
        ClaimedStep,
      ];
      expect(await store.heartbeat(claimed.map(held), 60_000)).toEqual(
        new Set(claimed.map((s) => s.id)),
      );
      expect(
        await store.complete([{ ...held(done), outputJson: '{"round":' + round + '}' }]),
      ).toEqual(new Set([done.id]));
      const failure = {
        ...held(retried),
        error: 'boom',
        panicStack: null,
        attempts: 0,
        maxAttempts: 3,
      };
      outcomes.push(
        await store.fail({ ...failure, errorKind: ErrorKind.Retryable, retryDelayMs: 3_600_000 }),
      );
      expect(await store.release(released.id, released.claimToken)).toBe(true);
      expect(await store.snooze(snoozed.id, snoozed.claimToken, 3_600_000)).toBe(true);
      outcomes.push(await failForGood(discarded));
    }
    expect(outcomes).toEqual(Array.from({ length: rounds }, () => ['retried', 'discarded']).flat());

    await expectGenericPlans(workerStatements);
  });

  it("an operator's and the scanners' moves keep generic plans after five runs", async () => {
    for (let round = 0; round < rounds; round++) {
      const [lapsed, paused, cancelled, failed] = (await claimSteps(operatorKind, 4)) as [
        ClaimedStep,
        ClaimedStep,
        ClaimedStep,
        ClaimedStep,
      ];
      // A lease that lapsed: the scanner gives the step back, and it is claimed again below.
      expect(await store.heartbeat([held(lapsed)], 1)).toEqual(new Set([lapsed.id]));
      await until(async () => (await store.reclaimExpired()) === 1, 'the lapsed lease reclaimed');
      await store.release(paused.id, paused.claimToken);
      await store.pauseRun(paused.runId);
      await store.resumeRun(paused.runId);
      await store.cancelRun(cancelled.runId);
      expect(await failForGood(failed)).toBe('discarded');
      expect(await store.retryRun(failed.runId, { all: true })).toMatchObject({ retried: 1 });
    }
    await expectGenericPlans(operatorStatements);
  });
});

/** A node of a plan as `EXPLAIN (FORMAT JSON)` gives it. */
interface PlanNode {
  readonly 'Index Name'?: string;
  readonly 'Actual Loops'?: number;
  readonly Plans?: readonly PlanNode[];
}

/** The primary keys of runs' and steps' partitions that a plan probed: index scans that ran. */
function probedKeys(node: PlanNode, into = new Set<string>()): Set<string> {
  const index = node['Index Name'] ?? '';
  if (/^cyclone_(runs|steps)_.+_pkey$/.test(index) && (node['Actual Loops'] ?? 0) > 0) {
    into.add(index);
  }
  console.log(
    node['Actual Loops'],
    (node as { 'Node Type'?: string })['Node Type'],
    (node as { 'Relation Name'?: string })['Relation Name'],
    index,
  );
  for (const child of node.Plans ?? []) probedKeys(child, into);
  return into;
}

describe.skipIf(!onOneTable)('on runs and steps partitioned by day, under the generic plan', () => {
  it("the claim and the completion probe the key of their rows' partition alone", async () => {
    const plansOf: { text: string; plan: PlanNode }[] = [];
    const onNotice = (notice: { message?: string }) => {
      const logged = /^duration: [\d.]+ ms  plan:\n([\s\S]*)$/.exec(notice.message ?? '');
      if (!logged) return;
      const explained = JSON.parse(logged[1]!) as { 'Query Text': string; Plan: PlanNode };
      plansOf.push({ text: explained['Query Text'], plan: explained.Plan });
    };
    // The store's one session: the plan a worker's session keeps after five runs, from the first
    // run on, and every plan with its actual loops sent to the client as a notice.
    const session = await pool.connect();
    try {
      for (const sql of [
        `LOAD 'auto_explain'`,
        `SET plan_cache_mode = force_generic_plan`,
        `SET auto_explain.log_min_duration = 0`,
        `SET auto_explain.log_analyze = on`,
        `SET auto_explain.log_timing = off`,
        `SET auto_explain.log_format = json`,
        `SET client_min_messages = log`,
      ])
        await session.query(sql);
      session.on('notice', onNotice);
    } finally {
      session.release();
    }
    try {
      const claimed = await claimSteps(probeKind, 3);
      expect(
        await store.complete(claimed.map((s) => ({ ...held(s), outputJson: 'null' }))),
      ).toEqual(new Set(claimed.map((s) => s.id)));
    } finally {
      session.off('notice', onNotice);
      await pool.query('RESET ALL');
    }
    const today = new Date().toISOString().slice(0, 10).replace(/-/g, '');
    const claim = plansOf.find((p) => p.text.includes('claim_token = (left('));
    const completion = plansOf.find((p) => p.text.includes('completed_event_id'));
    expect(claim && completion).toBeTruthy();
    for (const { plan } of [claim!, completion!]) {
      expect([...probedKeys(plan)].sort()).toEqual([
        `cyclone_runs_p${today}_pkey`,
        `cyclone_steps_p${today}_pkey`,
      ]);
    }
  });
});
