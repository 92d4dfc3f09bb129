import type { ClaimedStep, ClaimRequest } from '../contract/worker-store.js';
import type { Executor } from '../db/executor.js';
import { claimChangeParams } from '../tables/steps/claim-change.js';
import { claimSteps } from '../tables/steps/claim-steps.js';

/** Claims available steps of the given kinds for a worker. */
export async function claim(db: Executor, request: ClaimRequest): Promise<ClaimedStep[]> {
  if (request.kinds.length === 0 || request.limit <= 0) return [];
  const rows = await claimSteps(db, {
    ...claimChangeParams(request.workerId),
    kinds: request.kinds,
    limit: request.limit,
    leaseMs: request.leaseMs,
  });
  return rows.map((r) => ({
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
    leaseExpiresAt: r.lease_expires_at,
    workflow: r.workflow,
    input: r.input,
    deps: r.deps ?? {},
    item: r.item,
    itemIndex: r.item_index,
    traceContext: r.trace_context,
    queueWaitMs: r.queue_wait_ms,
  }));
}
