import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SqlRunner } from '../../src/db/sql-runner.js';
import { StatementCompiler } from '../../src/db/statement.js';
import { tablesIn } from '../../src/db/tables.js';
import { claim } from '../../src/execution/claim.js';
import { ClaimPositions } from '../../src/execution/claim-positions.js';
import { LimitedKinds } from '../../src/execution/limited-kinds.js';
import { useStore } from '../fixture.js';

const fx = useStore();

/** A clock the test moves by hand, and the positions that read it. */
function positionsWithClock(slackMs = 1_000) {
  const clock = { ms: 0 };
  return { clock, positions: new ClaimPositions(1_000, slackMs, () => clock.ms) };
}

/** Enqueues one job of `kind` per age (seconds before now), oldest first; their step ids. */
async function jobsAged(kind: string, ...ages: number[]): Promise<string[]> {
  const ids: string[] = [];
  for (const age of ages) {
    const { stepId } = await fx.job(kind);
    await fx.query(
      `UPDATE cyclone_steps SET scheduled_at = now() - $2::int * interval '1 second' WHERE id = $1`,
      [stepId, age],
    );
    ids.push(stepId);
  }
  return ids;
}

describe('the claim from a remembered position', () => {
  const claimOf = (kinds: string[], limit: number, positions: ClaimPositions) =>
    claim(
      new SqlRunner(fx.pool, new StatementCompiler(tablesIn(undefined, fx.tableLayout))),
      { kinds, limit, workerId: 'w', leaseMs: 60_000 },
      new LimitedKinds(),
      positions,
    ).then((steps) => steps.map((s) => s.id));

  it('passes over a step behind its position until it walks from the start again, within the interval', async () => {
    const kind = 'position.behind';
    const { clock, positions } = positionsWithClock();
    const [a, b, c, d] = await jobsAged(kind, 40, 30, 20, 10);
    // A full claim from the start: its first step is the kind's position.
    expect(await claimOf([kind], 2, positions)).toEqual([a, b]);
    // A step becomes claimable behind the position (a late commit, a release): the next claims,
    // full, start at the position and do not see it.
    const [late] = await jobsAged(kind, 50);
    clock.ms += 999;
    expect(await claimOf([kind], 1, positions)).toEqual([c]);
    // Once the interval is over, the claim walks from the start and takes it first.
    clock.ms += 1;
    expect(await claimOf([kind], 1, positions)).toEqual([late]);
    expect(await claimOf([kind], 1, positions)).toEqual([d]);
  });

  it("starts after a short claim at that claim's time less the slack, where a late commit is still seen", async () => {
    const kind = 'position.short';
    // A slack far longer than this test, so that "within it" does not depend on the machine.
    const { clock, positions } = positionsWithClock(120_000);
    const [a, b] = await jobsAged(kind, 40, 30);
    // Short (two of three): every claimable step was taken, the next claim starts at its time.
    expect(await claimOf([kind], 3, positions)).toEqual([a, b]);
    // Committed since, with times before that claim's: one within the slack, one far behind.
    const [far] = await jobsAged(kind, 600);
    const [late] = await jobsAged(kind, 10);
    clock.ms += 999;
    expect(await claimOf([kind], 3, positions)).toEqual([late]);
    clock.ms += 1;
    expect(await claimOf([kind], 3, positions)).toEqual([far]);
  });

  it('walks priorities above the default from the start: a later step of a higher priority comes first', async () => {
    const kind = 'position.priority';
    const { positions } = positionsWithClock();
    const [a, b, c] = await jobsAged(kind, 40, 30, 20);
    expect(await claimOf([kind], 1, positions)).toEqual([a]);
    expect(await claimOf([kind], 1, positions)).toEqual([b]);
    const { stepId: urgent } = await fx.job(kind, { priority: 5 });
    await fx.query(
      `UPDATE cyclone_steps SET scheduled_at = now() - interval '1 minute' WHERE id = $1`,
      [urgent],
    );
    expect(await claimOf([kind], 1, positions)).toEqual([urgent]);
    expect(await claimOf([kind], 1, positions)).toEqual([c]);
  });

  it('keeps a position per kind: one kind claimed from its position leaves another at its start', async () => {
    const [x, y] = ['position.kind-x', 'position.kind-y'];
    const { positions } = positionsWithClock();
    const [x1, x2] = await jobsAged(x, 40, 30);
    expect(await claimOf([x], 1, positions)).toEqual([x1]);
    const [y1] = await jobsAged(y, 50);
    // y has no position: its walk starts at the front, and its older step comes first.
    expect(await claimOf([x, y], 1, positions)).toEqual([y1]);
    expect(await claimOf([x, y], 1, positions)).toEqual([x2]);
  });

  it("takes the steps of one enqueueMany that share the position's time", async () => {
    const kind = 'position.ties';
    const { positions } = positionsWithClock();
    const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await fx.store.enqueue({
      kind,
      runIds: ids,
      argsJson: ids.map(() => 'null'),
      idempotencyKey: null,
      suffixKeys: false,
      options: {},
    });
    const [at] = await fx.query<{ n: string }>(
      'SELECT count(DISTINCT scheduled_at)::text AS n FROM cyclone_steps WHERE id = ANY($1)',
      [ids],
    );
    expect(at!.n).toBe('1');
    ids.sort();
    const got = [
      ...(await claimOf([kind], 2, positions)),
      ...(await claimOf([kind], 2, positions)),
    ];
    expect(got.sort()).toEqual(ids);
  });
});
