import type { NodeFacts } from '@cyclone/core';
import type { NodeLocator } from '../contract/run-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { getNodeFacts, NodeFactsConstants } from './get-node-facts.js';

/** Item indexes named in an explanation of a fan-out node, at most. */
const ListedItems = 10;

/**
 * The facts `explainNode` decides from, for one step of a run: `'run'` when the run is unknown,
 * `'node'` when the run has no such step.
 */
export async function readNodeFacts(
  db: SqlRunner,
  runId: string,
  locator: NodeLocator,
  livenessMs: number,
): Promise<NodeFacts | 'run' | 'node'> {
  const row = await getNodeFacts(db, {
    runId,
    stepId: 'stepId' in locator ? locator.stepId : null,
    node: 'node' in locator ? locator.node : null,
    itemIndex: 'node' in locator ? (locator.itemIndex ?? null) : null,
    livenessMs,
    listLimit: ListedItems,
    ...NodeFactsConstants,
  });
  if (!row) return 'run';
  if (row.id === null) return 'node';
  return {
    now: row.now,
    run: { id: runId, state: row.run_state, pausedAt: row.paused_at },
    step: {
      id: row.id,
      node: row.node,
      nodeType: row.node_type,
      kind: row.kind,
      state: row.state,
      itemIndex: row.item_index,
      attempts: row.attempts,
      maxAttempts: row.max_attempts,
      reclaims: row.reclaims,
      error: row.error,
      errorKind: row.error_kind,
      timedOut: row.timed_out,
      scheduledAt: row.scheduled_at,
      claimedBy: row.claimed_by,
      leaseExpiresAt: row.lease_expires_at,
      waitSignals: row.wait_signals,
      waitN: row.wait_n,
      waitGathered: row.wait_gathered,
      waitDeadlineAt: row.wait_deadline_at,
      childRunId: row.child_run_id,
    },
    upstream: row.upstream,
    fanOut:
      row.fan_out_node === null
        ? null
        : {
            node: row.fan_out_node,
            maxParallel: row.max_parallel,
            items: row.items,
            holding: row.holding,
            pending: row.items_pending,
            unfinished: row.unfinished,
            unfinishedCount: row.unfinished_count,
          },
    child:
      row.child_run_id === null || row.child_state === null
        ? null
        : { id: row.child_run_id, state: row.child_state },
    workers: { live: row.live_workers, serving: row.serving_workers },
    fairShare: row.fair_share
      ? {
          key: row.concurrency_key,
          turn:
            row.fair_turn_keyless === true
              ? { keyless: true }
              : row.fair_turn_key === null
                ? null
                : { key: row.fair_turn_key },
        }
      : null,
    limits:
      row.concurrency_max === null && row.rate_limit === null
        ? null
        : {
            concurrency:
              row.concurrency_max === null
                ? null
                : {
                    max: row.concurrency_max,
                    perKey: row.concurrency_per_key === true,
                    key: row.concurrency_key,
                    running: row.concurrency_running ?? 0,
                  },
            rate:
              row.rate_limit === null
                ? null
                : {
                    limit: row.rate_limit,
                    period: row.rate_period ?? '',
                    perKey: row.rate_per_key === true,
                    key: row.concurrency_key,
                    starts: row.rate_starts ?? 0,
                    until: row.rate_until,
                  },
          },
  };
}
