import { describe, expect, it } from 'vitest';
import { workflow, type StandardSchemaV1 } from '@cyclone/core';
import { plus, until, useSchedules } from './schedule-fixture.js';

const f = useSchedules();
const T0 = new Date('2026-05-04T10:00:00Z');
const MIN = 60_000;

describe('a schedule fires exactly once per tick', () => {
  it('starts one run at its tick, records the fire, and advances next_run_at', async () => {
    await f.client.schedule({ id: 'every-minute', cron: '* * * * *', kind: 'report.build' });
    await f.startAt('every-minute', T0);
    const s = f.scheduler();
    f.clock.now = plus(T0, MIN + 2_000); // 2 s after the 10:01 tick
    await f.fire(s);
    await f.fire(s); // the same clock again: nothing more to fire
    const [fire, ...rest] = await f.client.listScheduleFires('every-minute');
    expect(rest).toEqual([]);
    expect(fire).toMatchObject({ fireAt: plus(T0, MIN), outcome: 'submitted', late: false });
    const run = await f.client.getRun(fire!.runId!);
    expect(run).toMatchObject({ workflow: 'report.build', state: 'running' });
    const [schedule] = await f.client.listSchedules();
    expect(schedule).toMatchObject({
      id: 'every-minute',
      nextRunAt: plus(T0, 2 * MIN),
      lastFireAt: plus(T0, MIN),
      lastRunId: fire!.runId,
      consecutiveFailures: 0,
    });
  });

  it('two schedulers racing on the same tick start exactly one run', async () => {
    await f.client.schedule({ id: 'race', cron: '* * * * *', kind: 'race.job', overlap: 'allow' });
    await f.startAt('race', T0);
    const a = f.scheduler({ id: 'a' });
    const b = f.scheduler({ id: 'b' });
    f.clock.now = plus(T0, MIN + 1_000);
    // Both scanners on the same tick at once, several times over.
    await Promise.all([f.fire(a), f.fire(b), f.fire(a), f.fire(b)]);
    // Store-level passes straight at the same tick, bypassing the scanners' lock order.
    await Promise.all(
      [1, 2, 3].map(() =>
        f.store.fireDueSchedules({ now: f.clock.now, lease: 'scheduler', workflows: new Map() }),
      ),
    );
    expect(await f.countRuns('race.job')).toBe(1);
    expect(await f.client.listScheduleFires('race')).toHaveLength(1);
  });

  it('a tick whose fire another scheduler recorded starts no second run', async () => {
    await f.client.schedule({ id: 'taken', cron: '* * * * *', kind: 'taken.job' });
    await f.startAt('taken', T0);
    // A scheduler that committed this tick's fire and then lost its lease before advancing the
    // schedule (the row another scheduler then finds still due).
    await f.query(
      `INSERT INTO cyclone_schedule_fires (schedule_id, fire_at, outcome, run_id)
       VALUES ('taken', $1, 'submitted', '01900000-0000-7000-8000-000000000000')`,
      [plus(T0, MIN)],
    );
    f.clock.now = plus(T0, MIN + 1_000);
    await f.fire(f.scheduler());
    expect(await f.countRuns('taken.job')).toBe(0);
    const [schedule] = (await f.client.listSchedules()).filter((s) => s.id === 'taken');
    expect(schedule!.nextRunAt).toEqual(plus(T0, 2 * MIN));
  });

  it('a leader frozen past its lease while another takes over does not fire twice', async () => {
    await f.client.schedule({ id: 'frozen', cron: '* * * * *', kind: 'frozen.job' });
    await f.startAt('frozen', T0);
    const tick = plus(T0, MIN + 1_000);
    // Leader A freezes inside its schedules pass (its clock read never returns until released).
    let thaw!: () => void;
    const frozen = new Promise<void>((resolve) => (thaw = resolve));
    const a = f.scheduler({
      id: 'frozen-a',
      interval: '100ms', // a 500 ms leader lease
      scheduleClock: async () => {
        await frozen;
        return tick;
      },
    });
    const b = f.scheduler({ id: 'frozen-b', interval: '100ms' });
    f.clock.now = tick;
    const aPass = a.tick();
    await until(async () => a.isLeader, 'A to lead');
    await until(async () => {
      await b.tick();
      return b.isLeader;
    }, 'B to take over once A lease expired');
    expect(await f.countRuns('frozen.job')).toBe(1);
    thaw(); // A wakes up, still believing it leads, with the same tick in hand
    await aPass;
    await f.fire(a);
    expect(await f.countRuns('frozen.job')).toBe(1);
    expect(await f.client.listScheduleFires('frozen')).toHaveLength(1);
  });
});

describe('what a schedule submits', () => {
  it('submits a workflow stored by client.schedule, known to the scheduler by name', async () => {
    const nightly = workflow('nightly').task('a', 'nightly.a').task('b', 'nightly.b').build();
    const s = await f.client.schedule({
      id: 'nightly',
      cron: '0 3 * * *',
      workflow: nightly,
      input: { full: true },
    });
    expect(s).toMatchObject({
      workflow: 'nightly',
      kind: null,
      overlap: 'skip',
      catchUp: 'latest',
    });
    const start = new Date('2026-05-04T02:00:00Z');
    await f.startAt('nightly', start);
    f.clock.now = new Date('2026-05-04T03:00:05Z');
    await f.fire(f.scheduler()); // no `workflows` option: the stored definition is used
    const [runId] = await f.runsOf('nightly');
    expect(await f.client.getRun(runId!)).toMatchObject({ workflow: 'nightly' });
    const [run] = await f.query('SELECT input FROM cyclone_runs WHERE id = $1', [runId]);
    expect(run).toEqual({ input: { full: true } });
    expect((await f.client.listSteps(runId!)).map((x) => x.node)).toEqual(['a', 'b']);
  });

  it('counts submit failures (an unregistered workflow) and resets the count on success', async () => {
    await f.client.schedule({ id: 'unknown-wf', cron: '* * * * *', workflow: 'not-yet' });
    await f.startAt('unknown-wf', T0);
    const s = f.scheduler();
    for (const minute of [1, 2]) {
      f.clock.now = plus(T0, minute * MIN + 1_000);
      await f.fire(s);
    }
    const failed = (await f.client.listSchedules()).find((x) => x.id === 'unknown-wf')!;
    expect(failed.consecutiveFailures).toBe(2);
    expect(failed.lastError).toMatch(/workflow not-yet is not registered/);
    const fires = await f.client.listScheduleFires('unknown-wf');
    expect(fires.map((x) => x.outcome)).toEqual(['failed', 'failed']);
    expect(fires[0]!.error).toMatch(/not registered/);

    const registered = f.scheduler({ workflows: [workflow('not-yet').task('t', 'x.t').build()] });
    f.clock.now = plus(T0, 3 * MIN + 1_000);
    await f.fire(registered);
    const ok = (await f.client.listSchedules()).find((x) => x.id === 'unknown-wf')!;
    expect(ok.consecutiveFailures).toBe(0);
    expect((await f.client.listScheduleFires('unknown-wf'))[0]!.outcome).toBe('submitted');
  });

  it("records a fire failed with the issues, starting no run, when the input no longer fits the workflow's schema", async () => {
    // The workflow as the schedule was made: no input schema; the input has no orderId.
    await f.client.schedule({
      id: 'changed-wf',
      cron: '* * * * *',
      workflow: workflow('changed').task('t', 'changed.t').build(),
      input: { order: 'o-1' },
    });
    await f.startAt('changed-wf', T0);
    // The workflow as the scheduler now knows it: its input needs an orderId.
    const needsOrderId: StandardSchemaV1<{ orderId: string }> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: (value) =>
          typeof (value as { orderId?: unknown }).orderId === 'string'
            ? { value: value as { orderId: string } }
            : { issues: [{ message: 'expected text', path: ['orderId'] }] },
      },
    };
    const changed = workflow('changed', { input: needsOrderId }).task('t', 'changed.t').build();
    f.clock.now = plus(T0, MIN + 1_000);
    await f.fire(f.scheduler({ workflows: [changed] }));
    expect(await f.countRuns('changed')).toBe(0);
    const [fire] = await f.client.listScheduleFires('changed-wf');
    expect(fire).toMatchObject({ outcome: 'failed', runId: null });
    expect(fire!.error).toBe('invalid input of schedule "changed-wf": orderId: expected text');
    const schedule = (await f.client.listSchedules()).find((x) => x.id === 'changed-wf')!;
    expect(schedule).toMatchObject({ consecutiveFailures: 1, nextRunAt: plus(T0, 2 * MIN) });
    expect(schedule.lastError).toContain('orderId: expected text');
  });

  it('labels a fire handled more than 15 s after its tick late', async () => {
    await f.client.schedule({ id: 'late', cron: '* * * * *', kind: 'late.job' });
    await f.startAt('late', T0);
    f.clock.now = plus(T0, MIN + 16_000);
    await f.fire(f.scheduler());
    const [fire] = await f.client.listScheduleFires('late');
    expect(fire).toMatchObject({ fireAt: plus(T0, MIN), outcome: 'submitted', late: true });
  });
});
