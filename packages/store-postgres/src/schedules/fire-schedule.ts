import {
  isLateFire,
  isTerminalRun,
  OverlapPolicy,
  planDueFires,
  type Downtime,
  type WorkflowDefinition,
} from '@cyclone/core';
import type { FireOutcome } from '../contract/schedule-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { lockRun } from '../tables/runs/lock-run.js';
import { insertNewRuns, runsSettledAtSubmit } from '../tables/runs/insert-new-runs.js';
import { advanceSchedule } from '../tables/schedules/advance-schedule.js';
import { cancelPreviousScheduledRun } from './cancel-previous-scheduled-run.js';
import { insertFires } from '../tables/schedules/insert-fires.js';
import { resolveScheduleTarget } from './schedule-target.js';
import type { ScheduleRow } from '../tables/schedules/schedule-row.js';

/** The time of a schedules pass, as {@link fireSchedule} uses it. */
export interface PassClock {
  /** The pass's clock: a fire handled more than `LateFireMs` after its tick is `late`. */
  readonly now: Date;
  /** The newest time the pass decides: its clock, or the lease's last renewal when earlier. */
  readonly until: Date;
  /** The downtimes recorded so far. */
  readonly downtimes: readonly Downtime[];
}

/** How many fires of each outcome one schedule's pass recorded, and the runs to settle after it. */
export interface FirePass {
  readonly counts: Record<FireOutcome, number>;
  /** Runs it started that settlement moves on at once (see `runsSettledAtSubmit`). */
  readonly followUps: readonly string[];
}

/** Raised to roll a schedule's pass back when its `next_run_at` moved under it. */
export class ScheduleMovedError extends Error {
  constructor(id: string) {
    super(`schedule ${id} moved to another tick while it was being fired`);
    this.name = 'ScheduleMovedError';
  }
}

/**
 * Handles the due ticks of one locked schedule, inside the caller's transaction: asks
 * `planDueFires` which ticks fire (led ticks, and what each downtime's catch-up policy keeps),
 * records each fire (ON CONFLICT DO NOTHING on (schedule, tick)) and submits its run only when the
 * fire row was taken here, and advances `next_run_at` guarded by the value read. Any of it failing
 * rolls all of it back.
 */
export async function fireSchedule(
  db: SqlRunner,
  row: ScheduleRow,
  clock: PassClock,
  known: ReadonlyMap<string, WorkflowDefinition>,
): Promise<FirePass> {
  const counts: Record<FireOutcome, number> = { submitted: 0, skipped: 0, failed: 0 };
  const followUps: string[] = [];
  const { now } = clock;
  const previousNextRunAt = row.next_run_at!;
  const plan = planDueFires({
    schedule: { cron: row.cron, timezone: row.timezone },
    nextRunAt: previousNextRunAt,
    until: clock.until,
    downtimes: clock.downtimes,
    catchUp: row.catch_up,
    catchUpLimit: row.catch_up_limit,
  });
  const decided = plan.fire.length + plan.dropped.length > 0;
  if (!decided && plan.nextRunAt?.getTime() === previousNextRunAt.getTime()) {
    // Nothing to decide yet (a downtime this pass cannot see the end of): leave the row alone.
    return { counts, followUps };
  }

  // Missed ticks the catch-up policy drops are recorded, so a gap after downtime is never silent.
  if (plan.dropped.length > 0) {
    const error = `missed while no scheduler led; not caught up under catch-up '${row.catch_up}'`;
    const taken = await insertFires(db, {
      scheduleId: row.id,
      fireAts: [...plan.dropped],
      outcomes: plan.dropped.map(() => 'skipped'),
      runIds: plan.dropped.map(() => null),
      lates: plan.dropped.map((tick) => isLateFire(tick, now)),
      errors: plan.dropped.map(() => error),
    });
    counts.skipped += taken.size;
  }

  const target = plan.fire.length > 0 ? await resolveScheduleTarget(db, row, known) : undefined;
  let lastRunId = row.last_run_id;
  let newestRunId: string | null = null;
  let lastError: string | null = null;
  for (const fireAt of plan.fire) {
    const late = isLateFire(fireAt, now);
    const record = (outcome: FireOutcome, runId: string | null, error: string | null) =>
      insertFires(db, {
        scheduleId: row.id,
        fireAts: [fireAt],
        outcomes: [outcome],
        runIds: [runId],
        lates: [late],
        errors: [error],
      }).then((taken) => taken.size === 1);

    if (!target!.ok) {
      if (await record('failed', null, target!.error)) {
        counts.failed++;
        lastError = target!.error;
      }
      continue;
    }
    const active = lastRunId !== null && (await isActive(db, lastRunId));
    if (active && row.overlap === OverlapPolicy.Skip) {
      const reason = `the previous run ${lastRunId} is still active (overlap 'skip')`;
      if (await record('skipped', null, reason)) counts.skipped++;
      continue;
    }
    const run = target!.build();
    if (!(await record('submitted', run.id, null))) continue; // another scheduler handled it
    if (active && row.overlap === OverlapPolicy.CancelPrevious) {
      await cancelPreviousScheduledRun(db, lastRunId!);
    }
    followUps.push(...runsSettledAtSubmit([run], await insertNewRuns(db, [run])));
    counts.submitted++;
    lastRunId = run.id;
    newestRunId = run.id;
  }

  const handled = [...plan.dropped, ...plan.fire];
  const newestTick = handled.reduce<Date | null>(
    (newest, d) => (newest === null || d > newest ? d : newest),
    null,
  );
  const advanced = await advanceSchedule(db, {
    id: row.id,
    previousNextRunAt,
    nextRunAt: plan.nextRunAt ?? null,
    lastFireAt: newestTick,
    lastRunId: newestRunId,
    failures: counts.failed > 0 ? 'failed' : counts.submitted > 0 ? 'submitted' : 'none',
    error: lastError,
  });
  if (!advanced) throw new ScheduleMovedError(row.id);
  return { counts, followUps };
}

async function isActive(db: SqlRunner, runId: string): Promise<boolean> {
  const run = await lockRun(db, { runId });
  return run !== undefined && !isTerminalRun(run.state);
}
