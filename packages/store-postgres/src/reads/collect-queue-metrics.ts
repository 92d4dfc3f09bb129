import { ErrorKind } from '@cyclone/core';
import type { ExhaustedReason } from '../contract/operator-store.js';
import type { QueueMetrics, QueueMetricsQuery } from '../contract/queue-metrics-reads.js';
import type { Executor } from '../db/executor.js';
import { readQueueMetrics } from './read-queue-metrics.js';

/** Defaults of {@link QueueMetricsQuery}. */
export const QueueMetricsDefaults = { kindLimit: 100, countLimit: 100_000 } as const;

/** The DLQ's reasons, each reported even at zero so a dashboard's series never vanish. */
const Reasons: readonly ExhaustedReason[] = [
  ErrorKind.Retryable,
  ErrorKind.Permanent,
  ErrorKind.Deadline,
  ErrorKind.ReclaimLimit,
];

/** Reads the database-side gauges: queue depth and oldest age per kind, DLQ size per reason. */
export async function collectQueueMetrics(
  db: Executor,
  query: QueueMetricsQuery = {},
): Promise<QueueMetrics> {
  const rows = await readQueueMetrics(db, {
    kinds: query.kinds ?? null,
    kindLimit: query.kindLimit ?? QueueMetricsDefaults.kindLimit,
    countLimit: query.countLimit ?? QueueMetricsDefaults.countLimit,
    reasons: Reasons,
  });
  const queues = rows
    .filter((r) => r.series === 'queue')
    .map((r) => ({
      kind: r.label,
      available: r.count,
      oldestAgeSeconds: r.oldest_age_seconds ?? 0,
    }))
    .sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
  const exhausted = rows
    .filter((r) => r.series === 'dlq')
    .map((r) => ({ reason: r.label as ExhaustedReason, steps: r.count }));
  return { queues, exhausted };
}
