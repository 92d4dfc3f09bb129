import type { ClaimedStep, ClaimRequest } from '../contract/worker-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { claimChangeParams, type ClaimedStepRow } from '../tables/steps/claim-parts.js';
import {
  claimLimitedSteps,
  type ClaimLimitedStepsRow,
} from '../tables/steps/claim-limited-steps.js';
import { claimSteps } from '../tables/steps/claim-steps.js';
import {
  claimFairSteps,
  type ClaimFairStepsParams,
  type ClaimFairStepsRow,
} from '../tables/steps/claim-fair-steps.js';
import { lockKindLimit } from '../tables/limits/lock-kind-limit.js';
import { LimitedKinds, PerKeyScanExtra } from './limited-kinds.js';
import { ClaimPositions } from './claim-positions.js';

/**
 * Claims claimable steps of the given kinds for a worker: those of kinds without a flow limit in
 * one statement, then, for the asked-for kinds with one, each in a transaction that locks the
 * kind's limit row and then counts within its limit (`claimLimitedSteps`), while the claim's
 * `limit` is not reached. Kinds `limitedKinds` knows to be limited skip the first statement.
 *
 * The first statement walks each kind's default priority from the kind's position in `positions`
 * (decision 335), and tells them where the next may start.
 *
 * The lock is a statement of its own. A statement reads the database as it was when the
 * statement started; had the counting statement taken the lock itself, a claim that committed
 * while it waited for its turn would be missing from its counts, and the two claims together
 * would run more than the cap. Kinds under fair share are the exception: every claim of such a
 * kind moves its turn, so their statement can tell such a commit by the turn's row and take the
 * lock itself, one round trip a claim (`claimFairSteps`, decision 400).
 */
export async function claim(
  db: SqlRunner,
  request: ClaimRequest,
  limitedKinds: LimitedKinds = new LimitedKinds(),
  positions: ClaimPositions = new ClaimPositions(),
): Promise<ClaimedStep[]> {
  if (request.kinds.length === 0 || request.limit <= 0) return [];
  const change = claimChangeParams(request.workerId);
  const claimed: ClaimedStep[] = [];
  const limited = limitedKinds.limitedOf(request.kinds);
  const unlimited = limitedKinds.unlimitedOf(request.kinds);
  /** Claims steps of kinds without a limit; returns the kinds it found limited. */
  const claimUnlimited = async (kinds: readonly string[], limit: number): Promise<string[]> => {
    const from = positions.from(kinds);
    const rows = await claimSteps(db, {
      ...change,
      kinds,
      from,
      slackMs: positions.slackMs,
      limit,
      leaseMs: request.leaseMs,
    });
    /** The first default-priority step's `scheduled_at` claimed of each kind. */
    const first = new Map<string, string>();
    let taken = 0;
    for (const row of rows) {
      if (row.id === null) continue;
      const step = toClaimedStep(row as ClaimedStepRow);
      claimed.push(step);
      taken++;
      const at = first.get(step.kind);
      if (row.position !== null && (at === undefined || row.position < at)) {
        first.set(step.kind, row.position);
      }
    }
    positions.record({
      kinds,
      from,
      full: taken === limit,
      first,
      walkedTo: rows[0]?.walked_to ?? null,
    });
    const found = rows[0]?.limited_kinds ?? [];
    positions.forget(found);
    for (const kind of found) limitedKinds.add(kind);
    return found;
  };
  if (unlimited.length > 0) limited.push(...(await claimUnlimited(unlimited, request.limit)));
  /**
   * One limited claim of `kind` in a transaction of its own, reading `extra` claimable steps
   * beyond `limit` under a per-key limit: its rows, or whether the kind's limit row was `busy`
   * (another claim holds it) or `gone`.
   */
  const claimLimited = (kind: string, limit: number, extra: number) =>
    db.transaction(async (tx) => {
      const lock = await lockKindLimit(tx, { kind });
      if (lock.state !== 'locked') return lock.state;
      if (lock.fair) return 'fair' as const;
      const scan = limit + (lock.perKey ? extra : 0);
      const rows = await claimLimitedSteps(tx, {
        ...change,
        kind,
        limit,
        leaseMs: request.leaseMs,
        scan,
      });
      return { rows, perKey: lock.perKey, scan };
    });
  const take = (
    rows: readonly (ClaimLimitedStepsRow | ClaimFairStepsRow)[],
    fairShare = false,
  ): number => {
    let n = 0;
    for (const row of rows) {
      if (row.id === null) continue;
      claimed.push(toClaimedStep(row as ClaimedStepRow, fairShare));
      n++;
    }
    return n;
  };
  /** Steps of kinds under fair share claimed so far, against `request.fairLimit`. */
  let fairTaken = 0;
  const fairLimit = request.fairLimit ?? request.limit;
  /**
   * One fair claim statement, which locks the kind's rows itself: one round trip. When a claim of
   * the kind committed between the statement's start and its lock (`stale`), the statement could
   * not count it and claimed nothing; it runs again in a transaction, where once the first
   * statement holds the lock the second reads the database as it is under it (decision 400).
   */
  const claimFairOnce = async (
    p: ClaimFairStepsParams,
  ): Promise<ClaimFairStepsRow[] | 'busy' | 'gone'> => {
    let rows = await claimFairSteps(db, p);
    if (rows[0]!.lock_state === 'stale') {
      rows = await db.transaction(async (tx) => {
        const first = await claimFairSteps(tx, p);
        return first[0]!.lock_state === 'stale' ? claimFairSteps(tx, p) : first;
      });
    }
    const state = rows[0]!.lock_state;
    return state === 'busy' || state === 'gone' ? state : rows;
  };
  /**
   * Claims steps of `kind` under fair share, keys in turn, one transaction a statement: a
   * statement serves one priority and visits each key once, so the next one goes on with another
   * round at the same priority when it took some, or else (its keys all held back by their limits)
   * the priority below. Returns how many it took, or `'gone'` when the kind is no longer under
   * fair share (none taken): the caller claims it as it is now, at once.
   */
  const claimFair = async (kind: string, limit: number): Promise<number | 'gone'> => {
    let taken = 0;
    if (limit <= 0) return 0;
    let atMost = MaxPriority;
    for (let round = 0; round < FairRoundsPerClaim && taken < limit; round++) {
      const want = limit - taken;
      const outcome = await claimFairOnce({
        ...change,
        kind,
        limit: want,
        leaseMs: request.leaseMs,
        atMost,
        visits: want + FairVisitsExtra,
      });
      if (outcome === 'busy') break;
      if (outcome === 'gone') {
        // Fair share was removed since it was last seen.
        limitedKinds.delete(kind);
        return taken === 0 ? 'gone' : taken;
      }
      const took = take(outcome, true);
      taken += took;
      const { level, visited, room } = outcome[0]!;
      if (level === null || room === 0) break;
      if (took === 0) {
        if (visited >= limit - taken + FairVisitsExtra) continue;
        // Every key at this priority is held back by its limits: the priority below may run.
        atMost = String(BigInt(level) - 1n);
      }
    }
    return taken;
  };
  for (const kind of limited) {
    const limit = request.limit - claimed.length;
    if (limit <= 0) break;
    if (limitedKinds.isFair(kind)) {
      const taken = await claimFair(kind, Math.min(limit, fairLimit - fairTaken));
      if (taken !== 'gone') {
        fairTaken += taken;
        continue;
      }
      // No longer under fair share: limited, or not even that (found so just below).
      limitedKinds.add(kind);
    }
    const extra = limitedKinds.scanExtra(kind);
    const outcome = await claimLimited(kind, limit, extra);
    if (outcome === 'gone') {
      // Its limit was removed since it was last seen: an unlimited kind again. Should a limit be
      // set again in between, the unlimited statement names it, claims none of its steps, and
      // the next claim takes it the limited way.
      limitedKinds.delete(kind);
      await claimUnlimited([kind], limit);
      continue;
    }
    if (outcome === 'busy') continue;
    if (outcome === 'fair') {
      limitedKinds.markFair(kind);
      const taken = await claimFair(kind, Math.min(limit, fairLimit - fairTaken));
      if (taken !== 'gone') fairTaken += taken;
      continue;
    }
    const taken = take(outcome.rows);
    if (!outcome.perKey) continue;
    const { candidates, allowed, reach } = outcome.rows[0]!;
    limitedKinds.passedOver(kind, reach === null ? candidates : reach - allowed);
    // Short, having read all it might: steps of keys with room may lie further on. Look as far
    // as a claim ever does, now, rather than leave them to the next claim.
    if (taken < limit && candidates >= outcome.scan && extra < PerKeyScanExtra.most) {
      const further = await claimLimited(kind, limit - taken, PerKeyScanExtra.most);
      if (typeof further !== 'string') take(further.rows);
    }
  }
  return claimed;
}

/** The highest priority a step can have, where a claim under fair share starts. */
const MaxPriority = '9223372036854775807';

/**
 * Most statements one claim of a kind under fair share runs: each serves a round of the keys (or
 * a priority whose keys are all held back), so a claim short of its batch goes on a few times.
 */
const FairRoundsPerClaim = 8;

/**
 * Keys a fair-share statement visits beyond its batch: the key whose turn just ended, and keys at
 * their per-key limit, yield nothing.
 */
const FairVisitsExtra = 16;

function toClaimedStep(r: ClaimedStepRow, fairShare = false): ClaimedStep {
  return {
    id: r.id,
    runId: r.run_id,
    node: r.node,
    nodeType: r.node_type,
    kind: r.kind,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    reclaims: r.reclaims,
    timeoutMs: r.timeout_ms,
    backoff: r.backoff,
    claimToken: r.claim_token,
    leaseExpiresAt: new Date(r.lease_expires_ms),
    workflow: r.workflow,
    input: r.input,
    deps: r.deps ?? {},
    item: r.item,
    itemIndex: r.item_index,
    traceContext: r.trace_context,
    queueWaitMs: r.queue_wait_ms,
    standalone: r.standalone,
    ...(fairShare ? { fairShare } : {}),
  };
}
