import { describeThrown, type Downtime } from '@cyclone/core';
import type { FireDueSchedulesPass, FireDueSchedulesResult } from '../contract/schedule-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import { fireSchedule } from './fire-schedule.js';
import { lockDueSchedule } from '../tables/schedules/lock-due-schedule.js';
import { recordScheduleFailure } from '../tables/schedules/record-schedule-failure.js';
import { pruneLeaderGaps } from '../tables/workers/prune-leader-gaps.js';
import { readLeaderCoverage } from '../tables/workers/read-leader-coverage.js';

/**
 * One pass of the schedules scanner: each due enabled schedule is locked (FOR UPDATE SKIP LOCKED)
 * and fired in its own transaction, so one schedule's failure neither blocks nor undoes another's.
 * A schedule whose transaction fails is counted as a scanner failure on it, in a statement of its
 * own, and is not tried again in this pass.
 *
 * The pass first reads the lease it runs under: ticks are decided up to the pass's clock or the
 * lease's last renewal, whichever is earlier, against the downtimes recorded so far (decisions 27,
 * 241). A downtime recorded later starts after that renewal, so no tick this pass decides can
 * turn out to have been missed.
 */
export async function fireDueSchedules(
  db: SqlRunner,
  pass: FireDueSchedulesPass,
): Promise<WithFollowUps<FireDueSchedulesResult>> {
  const limit = pass.limit ?? 100;
  const handled: string[] = [];
  const result = { schedules: 0, submitted: 0, skipped: 0, failed: 0 };
  const followUps: string[] = [];
  const coverage = await readLeaderCoverage(db, { name: pass.lease });
  if (!coverage) return withFollowUps(result);
  const clock = {
    now: pass.now,
    until: coverage.renewedAt < pass.now ? coverage.renewedAt : pass.now,
    downtimes: coverage.gaps.map((g): Downtime => ({ from: g.startedAt, until: g.endedAt })),
  };
  while (handled.length < limit) {
    let current: string | undefined;
    try {
      const fired = await db.transaction(async (tx) => {
        const row = await lockDueSchedule(tx, { now: clock.until, handled });
        if (!row) return undefined;
        current = row.id;
        return fireSchedule(tx, row, clock, pass.workflows);
      });
      if (!fired) break;
      result.submitted += fired.counts.submitted;
      result.skipped += fired.counts.skipped;
      result.failed += fired.counts.failed;
      followUps.push(...fired.followUps);
    } catch (error) {
      // Nothing of the schedule's pass was written; without an id the pass itself cannot go on.
      if (current === undefined) throw error;
      await recordScheduleFailure(db, {
        id: current,
        error: `scanner failure: ${describeThrown(error).message}`,
      });
      result.failed++;
    }
    handled.push(current!);
    result.schedules++;
  }
  if (coverage.stale) await pruneLeaderGaps(db, { name: pass.lease });
  return withFollowUps(result, followUps);
}
