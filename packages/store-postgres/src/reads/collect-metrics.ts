import { ErrorKind, RunState } from '@cyclone/core';
import type { KindLimitMetrics, MetricsQuery, MetricsSnapshot } from '../contract/metrics-reads.js';
import type { ExhaustedReason } from '../contract/operator-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { readLimitMetrics, type LimitMetricsRow } from './read-limit-metrics.js';
import { readMetrics } from './read-metrics.js';

/** Defaults of {@link MetricsQuery}. */
export const MetricsDefaults = { kindLimit: 100, countLimit: 100_000 } as const;

/** The DLQ's reasons, each reported even at zero so a dashboard's series never vanish. */
const Reasons: readonly ExhaustedReason[] = [
  ErrorKind.Retryable,
  ErrorKind.Permanent,
  ErrorKind.Deadline,
  ErrorKind.ReclaimLimit,
];

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A limited kind's row as its limits' metrics. */
function toLimitMetrics(row: LimitMetricsRow): KindLimitMetrics {
  return {
    kind: row.kind,
    concurrency:
      row.concurrency_max === null
        ? null
        : {
            waiting: row.concurrency_waiting,
            saturation: row.concurrency_busiest / row.concurrency_max,
          },
    rate:
      row.rate_limit === null
        ? null
        : { waiting: row.rate_waiting, saturation: row.rate_busiest / row.rate_limit },
  };
}

/**
 * Reads the database-side gauges: each kind's queue, the DLQ per reason, runs per state and, when
 * asked, each limited kind's limits (a second statement, run beside the first).
 */
export async function collectMetrics(
  db: SqlRunner,
  query: MetricsQuery = {},
): Promise<MetricsSnapshot> {
  const kindLimit = query.kindLimit ?? MetricsDefaults.kindLimit;
  const countLimit = query.countLimit ?? MetricsDefaults.countLimit;
  const [rows, limitRows] = await Promise.all([
    readMetrics(db, {
      kinds: query.kinds ?? [],
      discoverKinds: query.discoverKinds ?? query.kinds === undefined,
      kindLimit,
      countLimit,
      reasons: Reasons,
      runs: query.runs ?? false,
    }),
    query.limits ? readLimitMetrics(db, { kindLimit, countLimit }) : [],
  ]);
  const queues = rows
    .filter((r) => r.series === 'queue')
    .map((r) => ({
      kind: r.label,
      available: r.count,
      ready: r.ready ?? 0,
      oldestReadyAgeSeconds: r.oldest_ready_age_seconds ?? 0,
      fairShareKeys: r.fair_keys,
    }))
    .sort((a, b) => byName(a.kind, b.kind));
  const exhausted = rows
    .filter((r) => r.series === 'dlq')
    .map((r) => ({ reason: r.label as ExhaustedReason, steps: r.count }));
  const counted = new Map(rows.filter((r) => r.series === 'run').map((r) => [r.label, r.count]));
  // Every state is reported, zero included, so alerts need no `absent()`.
  const runs = query.runs
    ? Object.values(RunState).map((state) => ({ state, runs: counted.get(state) ?? 0 }))
    : [];
  return { queues, exhausted, runs, limits: limitRows.map(toLimitMetrics) };
}
