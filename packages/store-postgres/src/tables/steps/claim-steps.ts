import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import {
  claimableSteps,
  ClaimedColumns,
  claimedRows,
  claimedRowColumns,
  claimOrder,
  claimColumns,
  type ClaimChangeParams,
  type ClaimedStepRow,
} from './claim-parts.js';

/** What {@link claimSteps} claims, and for whom. */
export interface ClaimStepsParams extends ClaimChangeParams {
  kinds: readonly string[];
  /**
   * For each of `kinds`, where the walk of its default priority starts: a `scheduled_at` (ISO
   * 8601), or null for the start (`ClaimPositions`).
   */
  from: readonly (string | null)[];
  /** How far before its `from` each kind's walk starts, in milliseconds. */
  slackMs: number;
  limit: number;
  leaseMs: number;
}

/**
 * A row of {@link claimSteps}: a claimed step (`id` set), or, when nothing was claimed, one row
 * with `id` null; each carries the requested kinds that have a flow limit, which this statement
 * leaves to `claimLimitedSteps`.
 */
export type ClaimStepsRow = { [K in keyof ClaimedStepRow]: ClaimedStepRow[K] | null } & {
  limited_kinds: string[] | null;
  /**
   * The step's `scheduled_at` (UTC, ISO 8601 to the microsecond) when it was claimed at the
   * default priority, else null: the first of a kind's is where its next claim may start.
   */
  position: string | null;
  /** The claim's `now()`, as `position`: the end of the default priority's range it walked. */
  walked_to: string;
};

/**
 * Claims up to `limit` claimable steps of the given kinds that have no flow limit (a concurrency
 * cap or a rate limit, `cyclone_limits`), higher priority first, then the oldest: one ordered walk
 * of the claim indexes per kind (an index scan cannot order across the values of kind = ANY(...))
 * then the best of those overall. Each claim gets a fresh token (the fence of every later write),
 * a lease, and its `step_started` told by the row (`claimColumns`); the handler's inputs come back
 * in the same round trip. The limited kinds among those asked for, and those under fair share
 * (`cyclone_fair_shares`), are returned for their own claim.
 *
 * Each kind's walk of the default priority starts `slackMs` before its `from` (decision 335):
 * past the dead index entries of the steps the claimant took before, which a long transaction
 * keeps vacuum from removing. Each default-priority row comes back with its `position`, and every
 * row with the claim's `now()`, where the next may start.
 *
 * The kinds and the limit are read through scalar subqueries, `(SELECT $n)`, which hide their
 * values from the planner: a plan made for the values (a custom plan) then costs what the plan
 * made once for any values (the generic plan) does, so after its first five runs on a connection
 * Postgres keeps the generic plan instead of planning the statement again at every claim, about
 * 0.6 ms of an idle worker's path from a notification to a handler's start (decision 286).
 *
 * Its transaction commits without waiting for its WAL to reach the disk (`synchronous_commit`
 * off for this transaction alone, decision 299), so handlers start without waiting for a flush:
 * 0.4 ms of an idle worker's pickup here, milliseconds on a disk that flushes slowly. The claim is
 * the one write whose loss costs nothing but a repeat run: a database that crashes before the
 * flush comes back with the steps available and their claims undone (at-least-once allows the
 * second run; the first one's late writes are fenced out), and every later write about a step
 * (a heartbeat, a completion, a failure) commits durably, which makes the claim before it durable
 * too. The claims of limited and fair kinds do the same unless the kind has a rate limit, which
 * counts the starts they record: a start that ran must stay counted (`claimWithinLimits`).
 */
const statement = defineStatement<ClaimStepsParams, ClaimStepsRow>(
  'claim-steps',
  (t, p) => `
WITH limited AS (
  SELECT kind FROM ${t.limits} WHERE kind = ANY((SELECT ${p.kinds}::text[])::text[])
  UNION
  SELECT kind FROM ${t.fairShares} WHERE kind = ANY((SELECT ${p.kinds}::text[])::text[])
), picked AS (
  SELECT s.id, s.priority, s.scheduled_at
  FROM (SELECT u.kind,
               coalesce(u.from_at, '-infinity') - (SELECT ${p.slackMs}::int) * interval '1 millisecond'
                 AS from_at
        FROM unnest((SELECT ${p.kinds}::text[]), (SELECT ${p.from}::timestamptz[])) AS u(kind, from_at)
        WHERE u.kind NOT IN (SELECT kind FROM limited)) AS k
  CROSS JOIN LATERAL (
    ${claimableSteps(t, 'k.kind', `(SELECT ${p.limit}::int)`, 'skip-locked', 'k.from_at')}
  ) s
  ORDER BY s.priority DESC, s.scheduled_at
  LIMIT (SELECT ${p.limit}::int)
), claimed AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.toState}::text), ${claimColumns(t, p.workerId, p.leaseMs)}
  -- By primary key alone, a join with the picked ids: one probe of the key a row (decision 420;
  -- chosen for tables partitioned by id, which decision 425 withdrew, and as cheap as
  -- id = ANY(ARRAY(...)) on one table). The ids are unnested from an
  -- array, which the planner counts as 10 rows whatever the claim's limit (the picked rows it
  -- counts as a share of the whole queue), so it probes the key a row rather than read the table
  -- into a hash. The picked rows are locked and were rechecked as available under the lock, so
  -- they still are: that is the change's fence (ClaimedFromState). Naming the state here too
  -- would let the planner AND the whole claim index into a bitmap, a read as long as the queue,
  -- or walk it once per picked row.
  FROM unnest(ARRAY(SELECT id FROM picked)) AS picked(id)
  WHERE s.id = picked.id
  RETURNING ${ClaimedColumns}
), rows AS (
  ${claimedRows(t)}
), commit_mode AS MATERIALIZED (
  -- For this transaction only (is_local), so a pooled connection's next transaction, a
  -- completion's say, commits durably as ever. One row: a claim of nothing still answers.
  SELECT set_config('synchronous_commit', 'off', true)
)
SELECT ${claimedRowColumns('rows')}, (SELECT array_agg(kind) FROM limited) AS limited_kinds,
       CASE WHEN rows.claim_priority = 0 THEN ${utcText('rows.claim_scheduled_at')} END AS position,
       ${utcText('now()')} AS walked_to
FROM commit_mode LEFT JOIN rows ON true
${claimOrder('rows')}
`,
);

/**
 * A `timestamptz` as UTC ISO 8601 text to the microsecond, whatever the session's time zone and
 * date style: it comes back as a bound parameter exactly, and such texts order as their times do.
 */
function utcText(at: string): string {
  return `to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/** Claims claimable steps of the given kinds without flow limits (see the statement). */
export function claimSteps(db: SqlRunner, p: ClaimStepsParams): Promise<ClaimStepsRow[]> {
  return db.rows(statement, p);
}
