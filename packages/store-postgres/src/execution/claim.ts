import type { ClaimedStep, ClaimRequest } from '../contract/worker-store.js';
import type { Executor } from '../db/executor.js';
import { claimChangeParams, type ClaimedStepRow } from '../tables/steps/claim-change.js';
import { claimLimitedSteps } from '../tables/steps/claim-limited-steps.js';
import { claimSteps } from '../tables/steps/claim-steps.js';
import { lockKindLimit } from '../tables/limits/lock-kind-limit.js';

/**
 * Most claimable steps a claim under a per-key limit looks at beyond what it may take: steps of
 * keys at their limit are passed over. Under limits of the whole kind every claimable step is as
 * good as the next, so such a claim looks at no more than it may take.
 */
const PerKeyScanExtra = 1_000;

/**
 * Claims claimable steps of the given kinds for a worker: those of kinds without a flow limit in
 * one statement, then, when some asked-for kinds have one, each of those in a transaction that
 * locks the kind's limit row and then counts within its limit (`claimLimitedSteps`), while the
 * claim's `limit` is not reached.
 *
 * The lock is a statement of its own. A statement reads the database as it was when the
 * statement started; had the counting statement taken the lock itself, a claim that committed
 * while it waited for its turn would be missing from its counts, and the two claims together
 * would run more than the cap.
 */
export async function claim(db: Executor, request: ClaimRequest): Promise<ClaimedStep[]> {
  if (request.kinds.length === 0 || request.limit <= 0) return [];
  const change = claimChangeParams(request.workerId);
  const rows = await claimSteps(db, {
    ...change,
    kinds: request.kinds,
    limit: request.limit,
    leaseMs: request.leaseMs,
  });
  const claimed: ClaimedStep[] = [];
  for (const row of rows) if (row.id !== null) claimed.push(toClaimedStep(row as ClaimedStepRow));
  for (const kind of rows[0]?.limited_kinds ?? []) {
    const limit = request.limit - claimed.length;
    if (limit <= 0) break;
    const limited = await db.transaction(async (tx) => {
      const locked = await lockKindLimit(tx, { kind });
      if (!locked) return [];
      return claimLimitedSteps(tx, {
        ...change,
        kind,
        limit,
        leaseMs: request.leaseMs,
        scan: limit + (locked.per_key ? PerKeyScanExtra : 0),
      });
    });
    for (const row of limited) claimed.push(toClaimedStep(row));
  }
  return claimed;
}

function toClaimedStep(r: ClaimedStepRow): ClaimedStep {
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
  };
}
