import { describe, expect, it } from 'vitest';
import { parseCronSchedule } from './cron-schedule.js';
import { CatchUpPolicy, isLateFire, LateFireMs, planDueFires } from './schedule-policy.js';

const minutely = parseCronSchedule('* * * * *');
const at = (iso: string) => new Date(iso);
const iso = (dates: readonly Date[]) => dates.map((d) => d.toISOString());

describe('planDueFires', () => {
  it('fires the tick that is due now and moves next_run_at to the following tick', () => {
    const plan = planDueFires({
      schedule: minutely,
      nextRunAt: at('2026-01-01T10:00:00Z'),
      now: at('2026-01-01T10:00:02Z'),
      catchUp: CatchUpPolicy.Latest,
      catchUpLimit: 100,
    });
    expect(iso(plan.fire)).toEqual(['2026-01-01T10:00:00.000Z']);
    expect(plan.dropped).toEqual([]);
    expect(plan.nextRunAt?.toISOString()).toBe('2026-01-01T10:01:00.000Z');
  });

  it('fires nothing before next_run_at has come', () => {
    const plan = planDueFires({
      schedule: minutely,
      nextRunAt: at('2026-01-01T10:01:00Z'),
      now: at('2026-01-01T10:00:30Z'),
      catchUp: CatchUpPolicy.All,
      catchUpLimit: 100,
    });
    expect(plan.fire).toEqual([]);
    expect(plan.nextRunAt?.toISOString()).toBe('2026-01-01T10:01:00.000Z');
  });

  // Down from 10:00 to 10:05:30: ticks 10:00 .. 10:05 were missed (10:05 is 30 s late).
  const afterDowntime = {
    schedule: minutely,
    nextRunAt: at('2026-01-01T10:00:00Z'),
    now: at('2026-01-01T10:05:30Z'),
  };

  it("catch-up 'none' fires no missed tick", () => {
    const plan = planDueFires({ ...afterDowntime, catchUp: CatchUpPolicy.None, catchUpLimit: 100 });
    expect(plan.fire).toEqual([]);
    expect(plan.dropped).toHaveLength(6);
    expect(plan.nextRunAt?.toISOString()).toBe('2026-01-01T10:06:00.000Z');
  });

  it("catch-up 'latest' fires the newest missed tick only", () => {
    const plan = planDueFires({
      ...afterDowntime,
      catchUp: CatchUpPolicy.Latest,
      catchUpLimit: 100,
    });
    expect(iso(plan.fire)).toEqual(['2026-01-01T10:05:00.000Z']);
    expect(plan.dropped).toHaveLength(5);
  });

  it("catch-up 'all' fires every missed tick, oldest first, up to the limit (the newest ones)", () => {
    const all = planDueFires({ ...afterDowntime, catchUp: CatchUpPolicy.All, catchUpLimit: 100 });
    expect(iso(all.fire)).toEqual([
      '2026-01-01T10:00:00.000Z',
      '2026-01-01T10:01:00.000Z',
      '2026-01-01T10:02:00.000Z',
      '2026-01-01T10:03:00.000Z',
      '2026-01-01T10:04:00.000Z',
      '2026-01-01T10:05:00.000Z',
    ]);
    const limited = planDueFires({ ...afterDowntime, catchUp: CatchUpPolicy.All, catchUpLimit: 2 });
    expect(iso(limited.fire)).toEqual(['2026-01-01T10:04:00.000Z', '2026-01-01T10:05:00.000Z']);
  });

  it('an on-time tick fires under every policy, beside the caught-up ones', () => {
    const plan = planDueFires({
      schedule: minutely,
      nextRunAt: at('2026-01-01T10:00:00Z'),
      now: at('2026-01-01T10:03:05Z'),
      catchUp: CatchUpPolicy.None,
      catchUpLimit: 100,
    });
    expect(iso(plan.fire)).toEqual(['2026-01-01T10:03:00.000Z']);
  });

  it('stays bounded after a very long downtime of a per-second schedule (limit + the on-time tick)', () => {
    const plan = planDueFires({
      schedule: parseCronSchedule('* * * * * *'),
      nextRunAt: at('2025-01-01T00:00:00Z'),
      now: at('2026-01-01T00:00:00.500Z'),
      catchUp: CatchUpPolicy.All,
      catchUpLimit: 3,
    });
    expect(iso(plan.fire)).toEqual([
      '2025-12-31T23:59:57.000Z',
      '2025-12-31T23:59:58.000Z',
      '2025-12-31T23:59:59.000Z',
      '2026-01-01T00:00:00.000Z',
    ]);
  });
});

describe('isLateFire', () => {
  it(`labels a fire late past ${LateFireMs} ms`, () => {
    const tick = at('2026-01-01T10:00:00Z');
    expect(isLateFire(tick, new Date(tick.getTime() + LateFireMs))).toBe(false);
    expect(isLateFire(tick, new Date(tick.getTime() + LateFireMs + 1))).toBe(true);
  });
});
