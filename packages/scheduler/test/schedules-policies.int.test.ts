import { describe, expect, it } from 'vitest';
import { plus, useSchedules } from './schedule-fixture.js';

const f = useSchedules();
const T0 = new Date('2026-06-01T12:00:00Z');
const MIN = 60_000;

describe('catch-up after a scheduler was down for ten ticks', () => {
  // next_run_at is 12:01; the scheduler comes back at 12:11:01, so 12:01..12:10 were missed and
  // 12:11 is due now.
  async function restart(id: string, catchUp: 'none' | 'latest' | 'all', catchUpLimit?: number) {
    await f.client.schedule({
      id,
      cron: '* * * * *',
      kind: `${id}.job`,
      overlap: 'allow',
      catchUp,
      ...(catchUpLimit === undefined ? {} : { catchUpLimit }),
    });
    await f.startAt(id, T0);
    f.clock.now = plus(T0, 11 * MIN + 1_000);
    await f.fire(f.scheduler());
    const fires = (await f.client.listScheduleFires(id, { limit: 100 })).reverse();
    const minute = (d: Date) => (d.getTime() - T0.getTime()) / MIN;
    return {
      submitted: fires.filter((x) => x.outcome === 'submitted').map((x) => minute(x.fireAt)),
      skipped: fires.filter((x) => x.outcome === 'skipped').map((x) => minute(x.fireAt)),
      late: fires.filter((x) => x.late).map((x) => minute(x.fireAt)),
      runs: await f.countRuns(`${id}.job`),
    };
  }

  it("'none' fires only the tick due now and records the missed ones as skipped", async () => {
    const r = await restart('cu-none', 'none');
    expect(r.submitted).toEqual([11]);
    expect(r.skipped).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(r.runs).toBe(1);
  });

  it("'latest' (the default) fires the newest missed tick, late, and the one due now", async () => {
    const r = await restart('cu-latest', 'latest');
    expect(r.submitted).toEqual([10, 11]);
    expect(r.late).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(r.runs).toBe(2);
  });

  it("'all' fires the newest catchUpLimit missed ticks, oldest first, and the one due now", async () => {
    const r = await restart('cu-all', 'all', 3);
    expect(r.submitted).toEqual([8, 9, 10, 11]);
    // The planner looks back no further than catchUpLimit + 1 ticks, so older ones leave no row.
    expect(r.skipped).toEqual([]);
    expect(r.runs).toBe(4);
  });
});

describe('overlap while runs take longer than the interval (no worker: they stay running)', () => {
  async function series(id: string, overlap: 'skip' | 'allow' | 'cancel_previous') {
    await f.client.schedule({ id, cron: '* * * * *', kind: `${id}.job`, overlap });
    await f.startAt(id, T0);
    const s = f.scheduler();
    for (const minute of [1, 2, 3]) {
      f.clock.now = plus(T0, minute * MIN + 1_000);
      await f.fire(s);
    }
    return (await f.client.listScheduleFires(id)).reverse();
  }

  it("'skip' records the ticks during an active run as skipped, and fires again once it ends", async () => {
    const fires = await series('ov-skip', 'skip');
    expect(fires.map((x) => x.outcome)).toEqual(['submitted', 'skipped', 'skipped']);
    expect(fires[1]!.error).toMatch(/still active/);
    // The run ends: the next tick fires.
    const [claimed] = await f.store.claim({
      kinds: ['ov-skip.job'],
      limit: 1,
      workerId: 'w',
      leaseMs: 60_000,
    });
    await f.store.complete([
      { stepId: claimed!.id, claimToken: claimed!.claimToken, outputJson: 'null' },
    ]);
    f.clock.now = plus(T0, 4 * MIN + 1_000);
    await f.fire(f.scheduler());
    const [newest] = await f.client.listScheduleFires('ov-skip');
    expect(newest).toMatchObject({ outcome: 'submitted', fireAt: plus(T0, 4 * MIN) });
    expect(await f.countRuns('ov-skip.job')).toBe(2);
  });

  it("'allow' starts a run at every tick beside the active ones", async () => {
    const fires = await series('ov-allow', 'allow');
    expect(fires.map((x) => x.outcome)).toEqual(['submitted', 'submitted', 'submitted']);
    const states = await Promise.all(fires.map((x) => f.client.getRun(x.runId!)));
    expect(states.map((r) => r.state)).toEqual(['running', 'running', 'running']);
  });

  it("'cancel_previous' cancels the active run as client.cancel would, then starts the new one", async () => {
    const fires = await series('ov-cancel', 'cancel_previous');
    expect(fires.map((x) => x.outcome)).toEqual(['submitted', 'submitted', 'submitted']);
    const runs = await Promise.all(fires.map((x) => f.client.getRun(x.runId!)));
    expect(runs.map((r) => r.state)).toEqual(['cancelled', 'cancelled', 'running']);
    const [step] = await f.client.listSteps(fires[0]!.runId!);
    expect(step!.state).toBe('cancelled');
    const events = await f.client.events(fires[0]!.runId!);
    expect(events.map((e) => [e.type, e.from, e.to])).toEqual([
      ['run_submitted', null, 'running'],
      ['step_cancelled_cancel', 'available', 'cancelled'],
      ['run_cancelled', 'running', 'cancelled'],
    ]);
  });
});
