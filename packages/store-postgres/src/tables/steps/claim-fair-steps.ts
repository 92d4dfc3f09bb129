import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { sqlConstant } from '../events/record-events.js';
import {
  ClaimedFromState,
  claimedRows,
  claimedRowColumns,
  type ClaimChangeParams,
  type ClaimedStepRow,
} from './claim-parts.js';
import { claimWithinLimits } from './claim-within-limits.js';

/** What {@link claimFairSteps} claims, and for whom. */
export interface ClaimFairStepsParams extends ClaimChangeParams {
  kind: string;
  limit: number;
  leaseMs: number;
  /** The highest priority served, as text (a bigint): a claim after one that served a level names the level below. */
  atMost: string;
  /** Most keys (and the group of steps without a key) visited. */
  visits: number;
}

const running = sqlConstant('running');
const available = sqlConstant(ClaimedFromState);

/**
 * A row of {@link claimFairSteps}: a claimed step (`id` set), or, when nothing was claimed, one row
 * with `id` null. Each tells the priority served (`level`, null: nothing claimable at or below
 * `atMost`), how many keys the claim visited (`visited`) and how many steps the kind's limits left
 * it room for (`room`).
 */
export type ClaimFairStepsRow = { [K in keyof ClaimedStepRow]: ClaimedStepRow[K] | null } & {
  level: string | null;
  visited: number;
  room: number;
  /**
   * `locked`: the claim held the kind's rows and claimed; `busy`: another claim holds one of them;
   * `gone`: the kind is not under fair share; `stale`: a claim of the kind committed after this
   * statement started, so it claimed nothing (claim again in a transaction that holds the lock).
   */
  lock_state: FairLockState;
};

/** How a fair claim found the kind's rows (see {@link ClaimFairStepsRow}). */
export type FairLockState = 'locked' | 'busy' | 'gone' | 'stale';

/** Larger than any weight: the visited key's turn is over. */
const TurnOver = 1_000_000;

/**
 * Claims up to `limit` claimable steps of one kind under fair share, taking the concurrency keys
 * with claimable steps in turn: from the key whose turn it is (`cyclone_fair_shares`), each key in
 * key order takes up to its weight of steps (its oldest first), the group of steps without a key
 * after the last key, and then the turn wraps around to the first key. The turn is stored with the
 * kind, so the claims of every worker take the keys in one round. The statement locks the kind's
 * fair-share row (and its limit row, if any) itself, `FOR UPDATE SKIP LOCKED`, so claims of the
 * kind take turns and one that finds a row held claims nothing; it claims only when no claim of the
 * kind committed between its start and its lock (`lock_state`, decision 400), so one round trip
 * does what a lock statement and a claim statement in a transaction did.
 *
 * Priority orders first: a claim serves the highest priority with a claimable step (at most
 * `atMost`), and takes keys in turn within it. Caps and rate limits of the kind still hold: per key
 * they cut the key's turn, for the whole kind they cut the claim.
 *
 * A claim that visited every key of the priority takes as many rounds as its batch needs, in
 * round order, so a batch of many steps over few keys costs one statement, and is still cut fairly:
 * the steps of each round come before those of the next.
 *
 * The keys are found one after another by the fair index (kind, priority, key, scheduled_at), one
 * probe each (a loose index scan), so a claim reads the keys it visits and the steps it takes, not
 * every claimable step of the kind, however many keys wait. A key is visited at most once a claim.
 * The candidates are read without locks: the update fences them (still claimable), as the limited
 * claim does.
 */
const statement = defineStatement<ClaimFairStepsParams, ClaimFairStepsRow>(
  'claim-fair-steps',
  (t, p) => {
    /**
     * The claimable steps of the kind at the served level, as a WHERE clause on `s`. The kind and
     * the level are scalar subqueries, which the planner takes for constants: it then reads a key's
     * steps in the fair index's order, its oldest first, and stops at its share, where a join with
     * the CTEs made it read and sort every claimable step of the key (decision 386).
     */
    const atLevel = `s.state = ${available} AND s.kind = (SELECT ${p.kind}::text)
        AND s.priority = (SELECT lv.p FROM lv) AND s.scheduled_at <= now()`;
    /**
     * The first key with claimable steps after `bound` (compared with `op`), and its oldest step:
     * the one probe that finds the key finds that step too, which is all a key of weight 1 takes.
     */
    const nextKey = (op: string, bound: string) => `SELECT s.concurrency_key AS key, s.id AS oldest
      FROM ${t.stepsHot} s WHERE ${atLevel} AND s.concurrency_key ${op} ${bound}
      ORDER BY s.concurrency_key, s.scheduled_at LIMIT 1`;
    /** The round the `k`th step a visited key `v` takes falls in (see `cand`). */
    const roundOf = (k: string) =>
      `CASE WHEN ${k} <= v.first THEN 0 ELSE 1 + (${k} - v.first - 1) / v.w END`;
    return `
WITH RECURSIVE held AS MATERIALIZED (
  -- The kind's fair-share row, locked for this claim unless another claim holds it. Locking
  -- reads the row's newest version (READ COMMITTED follows an update committed since the
  -- statement's snapshot), so the turn is always the current one; \`at\` is that version.
  SELECT fs.ctid AS at, fs.kind, fs.weights, fs.cursor_key, fs.cursor_keyless, fs.cursor_used
  FROM ${t.fairShares} fs WHERE fs.kind = (SELECT ${p.kind}::text)
  FOR UPDATE SKIP LOCKED
), held_limits AS MATERIALIZED (
  SELECT l.kind, l.concurrency_max, l.concurrency_per_key, l.rate_limit, l.rate_period_ms,
         l.rate_per_key
  FROM ${t.limits} l WHERE l.kind = (SELECT ${p.kind}::text)
  FOR UPDATE SKIP LOCKED
), lock AS MATERIALIZED (
  -- Whether this statement may claim (decision 400). Every other read of the statement sees the
  -- database as it was when the statement started, before the lock: a claim of the kind that
  -- committed in between would be missing from its counts of running steps and starts, and its
  -- steps would look claimable. Every claim that takes steps of a kind under fair share moves the
  -- turn, so a row version newer than the one the snapshot sees says one did: \`stale\`, and the
  -- caller claims again in a transaction that holds the lock. \`busy\`: another claim holds a row;
  -- \`gone\`: the kind is not under fair share.
  SELECT CASE
    WHEN NOT EXISTS (SELECT 1 FROM ${t.fairShares} WHERE kind = (SELECT ${p.kind}::text))
      THEN 'gone'
    WHEN NOT EXISTS (SELECT 1 FROM held)
      OR (EXISTS (SELECT 1 FROM ${t.limits} WHERE kind = (SELECT ${p.kind}::text))
          AND NOT EXISTS (SELECT 1 FROM held_limits))
      THEN 'busy'
    WHEN (SELECT at FROM held) <> (SELECT fs.ctid FROM ${t.fairShares} fs
                                   WHERE fs.kind = (SELECT ${p.kind}::text))
      THEN 'stale'
    ELSE 'locked' END AS state
), f AS MATERIALIZED (
  SELECT h.kind, h.weights, h.cursor_key, h.cursor_keyless, h.cursor_used,
         h.cursor_used >= CASE WHEN h.cursor_keyless THEN 1
                               ELSE coalesce((h.weights ->> h.cursor_key)::int, 1) END
           AS cursor_done,
         l.concurrency_max, coalesce(l.concurrency_per_key, false) AS cpk,
         l.rate_limit, l.rate_period_ms, coalesce(l.rate_per_key, false) AS rate_per_key
  FROM held h LEFT JOIN held_limits l ON true
  WHERE (SELECT state FROM lock) = 'locked'
), lv AS MATERIALIZED (
  -- The highest priority with a claimable step: one walk of the claim index, in its order, which
  -- stops at the first due step. The kind is the parameter, not \`f.kind\`: under a join with \`f\`
  -- the planner no longer takes the index's order for the query's and sorts every claimable step
  -- of the kind first (a million read for one row).
  SELECT s.priority AS p FROM ${t.stepsHot} s
  WHERE s.state = ${available} AND s.kind = (SELECT ${p.kind}::text) AND s.scheduled_at <= now()
    AND s.priority <= (SELECT ${p.atMost}::bigint) AND EXISTS (SELECT 1 FROM f)
  ORDER BY s.priority DESC NULLS LAST, s.scheduled_at
  LIMIT 1
), room AS MATERIALIZED (
  -- What the limits of the whole kind leave (per-key limits cut each key's turn below).
  SELECT greatest(0, least((SELECT ${p.limit}::int),
    CASE WHEN f.concurrency_max IS NOT NULL AND NOT f.cpk THEN f.concurrency_max - (
      SELECT count(*)::int FROM ${t.stepsHot} u WHERE u.state = ${running} AND u.kind = f.kind) END,
    CASE WHEN f.rate_limit IS NOT NULL AND NOT f.rate_per_key THEN f.rate_limit - (
      SELECT count(*)::int FROM ${t.rateStarts} r
      WHERE r.kind = f.kind AND r.at > now() - f.rate_period_ms * interval '1 millisecond') END
  )) AS n FROM f
), after(key, oldest, i, real) AS (
  -- The keys from the one whose turn it is to the last: that key itself while its turn lasts.
  SELECT f.cursor_key, NULL::uuid, 0, NOT f.cursor_done AND EXISTS (
           SELECT 1 FROM ${t.stepsHot} s WHERE ${atLevel} AND s.concurrency_key = f.cursor_key)
  FROM f WHERE f.cursor_key IS NOT NULL AND NOT f.cursor_keyless
  UNION ALL
  SELECT n.key, n.oldest, 1, true FROM f, lv, LATERAL (${nextKey('>=', "''")}) n
  WHERE f.cursor_key IS NULL AND NOT f.cursor_keyless
  UNION ALL
  SELECT n.key, n.oldest, a.i + 1, true FROM after a, f, lv, LATERAL (${nextKey('>', 'a.key')}) n
  WHERE a.i < (SELECT ${p.visits}::int)
), keyless AS (
  -- One probe of the fair index from the end of the level, where the steps without a key sort:
  -- asked whether any exists, the planner took the kind's keyless steps for many and scanned the
  -- table for the first (decision 386).
  SELECT coalesce((SELECT s.concurrency_key IS NULL FROM ${t.stepsHot} s WHERE ${atLevel}
                   ORDER BY s.concurrency_key DESC LIMIT 1), false) AS found
), before(key, oldest, i) AS (
  -- Then, the turn wrapped around, the keys from the first to the one whose turn it was.
  SELECT n.key, n.oldest, 1 FROM f, lv, LATERAL (${nextKey('>=', "''")}) n
  WHERE (f.cursor_keyless OR n.key < f.cursor_key OR (f.cursor_done AND n.key = f.cursor_key))
    AND (SELECT count(*) FROM after WHERE real) < (SELECT ${p.visits}::int)
  UNION ALL
  SELECT n.key, n.oldest, b.i + 1 FROM before b, f, lv, LATERAL (${nextKey('>', 'b.key')}) n
  WHERE (f.cursor_keyless OR n.key < f.cursor_key OR (f.cursor_done AND n.key = f.cursor_key))
    AND b.i + (SELECT count(*) FROM after WHERE real) < (SELECT ${p.visits}::int)
), walk AS (
  SELECT 1 AS part, a.i, true AS keyed, a.key, a.oldest,
         a.key = f.cursor_key AND NOT f.cursor_keyless AS continues
  FROM after a, f WHERE a.real
  UNION ALL
  -- The group of steps without a key comes after the last key, in the round as in the index.
  SELECT 2, 0, false, NULL, NULL, f.cursor_keyless FROM keyless k, f
  WHERE k.found AND NOT (f.cursor_keyless AND f.cursor_done)
  UNION ALL
  SELECT 3, b.i, true, b.key, b.oldest, false FROM before b
  UNION ALL
  SELECT 4, 0, false, NULL, NULL, false FROM keyless k, f
  WHERE k.found AND f.cursor_keyless AND f.cursor_done
), visits AS MATERIALIZED (
  SELECT w.keyed, w.key, w.oldest, w.continues, row_number() OVER (ORDER BY w.part, w.i) AS pos
  FROM walk w ORDER BY w.part, w.i LIMIT (SELECT ${p.visits}::int)
), busy AS MATERIALIZED (
  -- Under a per-key cap, the running steps of each key: one read of the kind's running steps,
  -- not one for each key visited.
  SELECT u.concurrency_key AS key, count(*)::int AS n FROM ${t.stepsHot} u
  WHERE u.state = ${running} AND u.kind = (SELECT ${p.kind}::text)
    AND EXISTS (SELECT 1 FROM f WHERE f.concurrency_max IS NOT NULL AND f.cpk)
  GROUP BY u.concurrency_key
), shares AS MATERIALIZED (
  -- Each visited key's weight, what is left of its turn (all of it, unless its turn goes on), and
  -- the room its per-key limits leave.
  SELECT v.*, w.w,
    greatest(0, w.w - CASE WHEN v.continues THEN f.cursor_used ELSE 0 END) AS first,
    least(
      CASE WHEN f.concurrency_max IS NOT NULL AND f.cpk THEN f.concurrency_max - coalesce((
        SELECT b.n FROM busy b
        WHERE b.key IS NOT DISTINCT FROM (CASE WHEN v.keyed THEN v.key END)), 0)
      END,
      CASE WHEN f.rate_limit IS NOT NULL AND f.rate_per_key THEN f.rate_limit - (
        SELECT count(*)::int FROM ${t.rateStarts} r
        WHERE r.kind = f.kind AND r.at > now() - f.rate_period_ms * interval '1 millisecond'
          AND (CASE WHEN v.keyed THEN r.key = v.key ELSE r.key IS NULL END))
      END) AS key_room
  FROM visits v, f,
       LATERAL (SELECT CASE WHEN v.keyed THEN coalesce((f.weights ->> v.key)::int, 1) ELSE 1 END
                  AS w) w
), rounds AS MATERIALIZED (
  -- Rounds this claim may take: as many as its room needs when it visited every key of the
  -- priority (the rest of the current turn, then whole rounds), else the one.
  SELECT CASE WHEN count(*) < (SELECT ${p.visits}::int) AND sum(sh.w) > 0
              THEN greatest(1, ceil((SELECT n FROM room)::numeric / sum(sh.w)))::int
              ELSE 1 END AS n
  FROM shares sh
), quota AS MATERIALIZED (
  SELECT sh.*, greatest(0, least(sh.first + (rounds.n - 1) * sh.w, sh.key_room)) AS q
  FROM shares sh, rounds
), cand AS (
  -- A key's steps, oldest first, each with the round it falls in: the rest of the current turn is
  -- round 0, and each whole weight after it a round more. A key that takes one step takes the one
  -- its probe found, read from the walk without a second probe or a join: over many keys of one
  -- step each that is every key (decision 401).
  SELECT v.pos, v.oldest AS id, 1::bigint AS k, ${roundOf('1')} AS round
  FROM quota v WHERE v.q = 1 AND v.oldest IS NOT NULL
  UNION ALL
  SELECT v.pos, c.id, c.k, ${roundOf('c.k')} AS round
  FROM quota v CROSS JOIN LATERAL (
    SELECT x.id, row_number() OVER (ORDER BY x.scheduled_at) AS k FROM (
      (SELECT s.id, s.scheduled_at FROM ${t.stepsHot} s
       WHERE v.keyed AND ${atLevel} AND s.concurrency_key = v.key
       ORDER BY s.concurrency_key, s.scheduled_at LIMIT v.q)
      UNION ALL
      (SELECT s.id, s.scheduled_at FROM ${t.stepsHot} s
       WHERE NOT v.keyed AND ${atLevel} AND s.concurrency_key IS NULL
       ORDER BY s.concurrency_key, s.scheduled_at LIMIT v.q)) x
  ) c
  WHERE v.q > 1 OR (v.q = 1 AND v.oldest IS NULL)
), allowed AS MATERIALIZED (
  SELECT c.id, c.pos, c.round, row_number() OVER (ORDER BY c.round, c.pos, c.k) AS n FROM cand c
  ORDER BY c.round, c.pos, c.k
  LIMIT (SELECT n FROM room)
), ${claimWithinLimits(t, { p, allowed: 'allowed', limits: 'f l' })}, last AS (
  -- Where the turn stands now: at the key of the last step taken when the claim is full (its turn
  -- goes on while it took less than its weight in that round), else past the last key visited.
  SELECT q.keyed, q.key, q.continues AND a.round = 0 AS continues,
         (SELECT count(*) FROM allowed b WHERE b.pos = a.pos AND b.round = a.round)::int AS took,
         true AS filled
  FROM (SELECT * FROM allowed ORDER BY n DESC LIMIT 1) a JOIN quota q ON q.pos = a.pos, room
  WHERE (SELECT count(*) FROM allowed) = room.n
  UNION ALL
  SELECT q.keyed, q.key, false, 0, false
  FROM quota q, room
  WHERE room.n > 0 AND (SELECT count(*) FROM allowed) < room.n
    AND q.pos = (SELECT max(pos) FROM quota)
), turn AS (
  UPDATE ${t.fairShares} fs
  SET cursor_key = last.key, cursor_keyless = NOT last.keyed,
      cursor_used = CASE WHEN last.filled
                         THEN CASE WHEN last.continues THEN f.cursor_used ELSE 0 END + last.took
                         ELSE ${TurnOver} END
  FROM last, f
  WHERE fs.kind = f.kind
), rows AS (
  ${claimedRows(t)}
)
SELECT ${claimedRowColumns('rows')},
       (SELECT p::text FROM lv) AS level,
       (SELECT count(*)::int FROM visits) AS visited,
       (SELECT n FROM room) AS room,
       (SELECT state FROM lock) AS lock_state
-- One row at least, so that a claim of nothing still tells what it found.
FROM (SELECT 1) AS one CROSS JOIN commit_mode LEFT JOIN rows ON true
-- In the turn's order, which the worker starts them in: a batch claimed ahead of its slots
-- starts keys in turn, not one key's older steps first (decision 385).
LEFT JOIN allowed turn ON turn.id = rows.id
ORDER BY turn.n
`;
  },
);

/** Claims claimable steps of one kind under fair share, keys in turn (see the statement). */
export function claimFairSteps(
  db: SqlRunner,
  p: ClaimFairStepsParams,
): Promise<ClaimFairStepsRow[]> {
  return db.rows(statement, p);
}
