import { cronFiresBetween, MaxFiresPerCall, ValidationError } from '@cyclone/core';
import type { BackfillResult } from '../contract/schedule-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import { insertNewRuns, runsSettledAtSubmit } from '../tables/runs/insert-new-runs.js';
import { claimBackfillFires } from '../tables/schedules/claim-backfill-fires.js';
import { databaseNow } from '../db/database-now.js';
import { lockScheduleRow } from '../tables/schedules/get-schedule.js';
import { resolveScheduleTarget } from './schedule-target.js';

/**
 * Starts one run for every tick of a schedule in `[from, to)` that has none, in one transaction
 * under the schedule's lock: the fire rows and their runs commit together, and a tick that has a
 * run (from the scanner or an earlier backfill) is counted as skipped. Overlap does not apply:
 * a backfill asks for history on purpose. The range must lie in the past by the database's clock.
 * `value` is undefined for an unknown id; runs it started with child nodes waiting from the start
 * are follow-ups.
 */
export function backfillSchedule(
  db: SqlRunner,
  id: string,
  from: Date,
  to: Date,
): Promise<WithFollowUps<BackfillResult | undefined>> {
  return db.transaction(async (tx) => {
    const row = await lockScheduleRow(tx, { id });
    if (!row) return withFollowUps(undefined);
    const now = await databaseNow(tx);
    if (to.getTime() > now.getTime()) {
      throw new ValidationError('backfill', [
        {
          path: 'to',
          message: `expected a time not after the database's clock (${now.toISOString()}), got ${to.toISOString()}`,
        },
      ]);
    }
    const ticks = cronFiresBetween(row, from, to, MaxFiresPerCall + 1);
    if (ticks.length > MaxFiresPerCall) {
      throw new ValidationError('backfill', [
        {
          path: 'from',
          message: `expected a range of at most ${MaxFiresPerCall} ticks; backfill it in parts`,
        },
      ]);
    }
    if (ticks.length === 0) return withFollowUps({ created: 0, skipped: 0 });
    const target = await resolveScheduleTarget(tx, row, new Map());
    if (!target.ok) {
      throw new ValidationError('backfill', [{ path: 'workflow', message: target.error }]);
    }
    const runs = ticks.map(() => target.build());
    const taken = await claimBackfillFires(tx, {
      scheduleId: id,
      fireAts: ticks,
      runIds: runs.map((r) => r.id),
    });
    const takenIds = new Set(taken.map((t) => t.run_id));
    const created = runs.filter((r) => takenIds.has(r.id));
    const submitted = created.length > 0 ? await insertNewRuns(tx, created) : [];
    return withFollowUps(
      { created: created.length, skipped: ticks.length - created.length },
      runsSettledAtSubmit(created, submitted),
    );
  });
}
