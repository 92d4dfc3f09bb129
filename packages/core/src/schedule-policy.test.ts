import { describe, expect, it } from 'vitest';
import { parseCronSchedule } from './cron-schedule.js';
import {
  CatchUpPolicy,
  isLateFire,
  LateFireMs,
  MaxLedTicksPerPass,
  planDueFires,
  type DueFiresInput,
} from './schedule-policy.js';

const minutely = parseCronSchedule('* * * * *');
const at = (iso: string) => new Date(`2026-01-01T${iso}Z`);
const iso = (dates: readonly Date[]) => dates.map((d) => d.toISOString().slice(11, 19));

/** A plan for the minutely schedule, led throughout unless `downtimes` say otherwise. */
function plan(input: Partial<DueFiresInput> & Pick<DueFiresInput, 'nextRunAt' | 'until'>) {
  const result = planDueFires({
    schedule: minutely,
    downtimes: [],
    catchUp: CatchUpPolicy.Latest,
    catchUpLimit: 100,
    ...input,
  });
  return {
    fire: iso(result.fire),
    dropped: iso(result.dropped),
    nextRunAt: result.nextRunAt?.toISOString().slice(11, 19),
  };
}

describe('planDueFires while a scheduler leads', () => {
  it('fires the tick that is due and moves next_run_at to the following tick', () => {
    expect(plan({ nextRunAt: at('10:00:00'), until: at('10:00:02') })).toEqual({
      fire: ['10:00:00'],
      dropped: [],
      nextRunAt: '10:01:00',
    });
  });

  it('fires nothing before next_run_at has come', () => {
    expect(plan({ nextRunAt: at('10:01:00'), until: at('10:00:30') })).toEqual({
      fire: [],
      dropped: [],
      nextRunAt: '10:01:00',
    });
  });

  it.each([CatchUpPolicy.None, CatchUpPolicy.Latest, CatchUpPolicy.All])(
    "fires every tick that fell due while it led, however late the pass (catch-up '%s')",
    (catchUp) => {
      const late = plan({ nextRunAt: at('10:00:00'), until: at('10:05:30'), catchUp });
      expect(late.fire).toEqual([
        '10:00:00',
        '10:01:00',
        '10:02:00',
        '10:03:00',
        '10:04:00',
        '10:05:00',
      ]);
      expect(late.dropped).toEqual([]);
      expect(late.nextRunAt).toBe('10:06:00');
    },
  );

  it(`decides at most ${MaxLedTicksPerPass} led ticks in one pass and goes on from the next`, () => {
    const result = planDueFires({
      schedule: parseCronSchedule('* * * * * *'),
      nextRunAt: at('10:00:00'),
      until: at('11:00:00'),
      downtimes: [],
      catchUp: CatchUpPolicy.None,
      catchUpLimit: 100,
    });
    expect(result.fire).toHaveLength(MaxLedTicksPerPass);
    expect(result.fire.at(-1)).toEqual(new Date(at('10:00:00').getTime() + 999_000));
    expect(result.nextRunAt).toEqual(new Date(at('10:00:00').getTime() + 1_000_000));
  });
});

describe('planDueFires after a downtime', () => {
  // The scheduler led until its last renewal at 10:00:30 and came back 0.4 s after the 10:03
  // tick: 10:01, 10:02 and 10:03 were missed, however soon it came back.
  const restart = {
    nextRunAt: at('10:01:00'),
    until: at('10:03:00.400'),
    downtimes: [{ from: at('10:00:30'), until: at('10:03:00.400') }],
  };

  it("'none' fires none of the missed ticks, not even the one just before the restart", () => {
    expect(plan({ ...restart, catchUp: CatchUpPolicy.None })).toEqual({
      fire: [],
      dropped: ['10:01:00', '10:02:00', '10:03:00'],
      nextRunAt: '10:04:00',
    });
  });

  it("'latest' fires exactly one, the newest missed tick", () => {
    expect(plan({ ...restart, catchUp: CatchUpPolicy.Latest })).toEqual({
      fire: ['10:03:00'],
      dropped: ['10:01:00', '10:02:00'],
      nextRunAt: '10:04:00',
    });
  });

  it("'all' fires one per missed tick, the newest catchUpLimit, oldest first", () => {
    expect(plan({ ...restart, catchUp: CatchUpPolicy.All }).fire).toEqual([
      '10:01:00',
      '10:02:00',
      '10:03:00',
    ]);
    expect(plan({ ...restart, catchUp: CatchUpPolicy.All, catchUpLimit: 2 })).toMatchObject({
      fire: ['10:02:00', '10:03:00'],
      dropped: ['10:01:00'],
    });
    expect(plan({ ...restart, catchUp: CatchUpPolicy.All, catchUpLimit: 0 }).fire).toEqual([]);
  });

  it('fires the ticks before and after the downtime as led, and one for the downtime', () => {
    // Led to 10:01:00 (its tick included), down until 10:04:00 (its tick led again).
    const result = plan({
      nextRunAt: at('10:00:00'),
      until: at('10:05:10'),
      downtimes: [{ from: at('10:01:00'), until: at('10:04:00') }],
      catchUp: CatchUpPolicy.Latest,
    });
    expect(result).toEqual({
      fire: ['10:00:00', '10:01:00', '10:03:00', '10:04:00', '10:05:00'],
      dropped: ['10:02:00'],
      nextRunAt: '10:06:00',
    });
  });

  it('treats each downtime on its own: one run each under latest', () => {
    const result = plan({
      nextRunAt: at('10:00:00'),
      until: at('10:10:00'),
      downtimes: [
        { from: at('10:06:30'), until: at('10:09:30') },
        { from: at('10:00:30'), until: at('10:04:30') },
      ],
      catchUp: CatchUpPolicy.Latest,
    });
    expect(result.fire).toEqual([
      '10:00:00',
      '10:04:00',
      '10:05:00',
      '10:06:00',
      '10:09:00',
      '10:10:00',
    ]);
    expect(result.dropped).toEqual(['10:01:00', '10:02:00', '10:03:00', '10:07:00', '10:08:00']);
  });

  it('counts a downtime from next_run_at when it began earlier, and from the start of time when its start is unknown', () => {
    const before = plan({
      nextRunAt: at('10:02:00'),
      until: at('10:04:30'),
      downtimes: [{ from: at('09:00:00'), until: at('10:04:30') }],
      catchUp: CatchUpPolicy.None,
    });
    expect(before.dropped).toEqual(['10:02:00', '10:03:00', '10:04:00']);
    const unknown = plan({
      nextRunAt: at('10:02:00'),
      until: at('10:04:30'),
      downtimes: [{ from: null, until: at('10:04:30') }],
    });
    expect(unknown).toEqual({
      fire: ['10:04:00'],
      dropped: ['10:02:00', '10:03:00'],
      nextRunAt: '10:05:00',
    });
  });

  it('leaves a downtime the pass cannot see the end of for a later pass, and decides it whole then', () => {
    const downtime = { from: at('10:00:30'), until: at('10:05:30') };
    // A pass whose clock is inside the downtime (a leader frozen with an old clock in hand).
    const early = plan({
      nextRunAt: at('10:00:00'),
      until: at('10:03:10'),
      downtimes: [downtime],
    });
    expect(early).toEqual({ fire: ['10:00:00'], dropped: [], nextRunAt: '10:01:00' });
    const later = plan({ nextRunAt: at('10:01:00'), until: at('10:05:40'), downtimes: [downtime] });
    expect(later.fire).toEqual(['10:05:00']);
    expect(later.dropped).toEqual(['10:01:00', '10:02:00', '10:03:00', '10:04:00']);
    // Nothing at all when the schedule's first tick lies in such a downtime.
    expect(
      plan({ nextRunAt: at('10:01:00'), until: at('10:03:10'), downtimes: [downtime] }),
    ).toEqual({ fire: [], dropped: [], nextRunAt: '10:01:00' });
  });

  it('ignores downtimes that ended before next_run_at', () => {
    const result = plan({
      nextRunAt: at('10:02:00'),
      until: at('10:03:05'),
      downtimes: [{ from: at('09:00:00'), until: at('10:01:30') }],
      catchUp: CatchUpPolicy.None,
    });
    expect(result.fire).toEqual(['10:02:00', '10:03:00']);
  });

  it('stays bounded after a year-long downtime of a per-second schedule', () => {
    const result = planDueFires({
      schedule: parseCronSchedule('* * * * * *'),
      nextRunAt: new Date('2025-01-01T00:00:00Z'),
      until: new Date('2026-01-01T00:00:00.500Z'),
      downtimes: [
        { from: new Date('2024-12-31T23:59:59.500Z'), until: new Date('2026-01-01T00:00:00.500Z') },
      ],
      catchUp: CatchUpPolicy.All,
      catchUpLimit: 3,
    });
    expect(iso(result.fire)).toEqual(['23:59:58', '23:59:59', '00:00:00']);
    // The window is catchUpLimit + 1 ticks: older missed ticks leave no row.
    expect(iso(result.dropped)).toEqual(['23:59:57']);
    expect(result.nextRunAt).toEqual(new Date('2026-01-01T00:00:01Z'));
  });
});

describe('isLateFire', () => {
  it(`labels a fire late past ${LateFireMs} ms`, () => {
    const tick = at('10:00:00');
    expect(isLateFire(tick, new Date(tick.getTime() + LateFireMs))).toBe(false);
    expect(isLateFire(tick, new Date(tick.getTime() + LateFireMs + 1))).toBe(true);
  });
});
