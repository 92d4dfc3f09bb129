import { describe, expect, it } from 'vitest';
import { plus, useSchedules } from './schedule-fixture.js';

const f = useSchedules();
const T0 = new Date('2026-06-01T12:00:00Z');
const MIN = 60_000;

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
