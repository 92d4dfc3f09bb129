import type { Tables } from '../../db/tables.js';

/**
 * The recursive part of a `WITH RECURSIVE seen(kind, n)` that lists the kinds with available steps,
 * up to `limit` of them, by a skip scan of the claim index: one index probe per distinct kind, not
 * a read of every available step. The one home of that scan for the reads that discover kinds
 * (metrics, the queues overview).
 */
export function availableKindsSeen(t: Tables, limit: string): string {
  return `seen(kind, n) AS (
  (SELECT kind, 1 FROM ${t.stepsHot} WHERE state = 'available' AND kind IS NOT NULL
   ORDER BY kind LIMIT 1)
  UNION ALL
  SELECT next.kind, seen.n + 1 FROM seen CROSS JOIN LATERAL (
    SELECT s.kind FROM ${t.stepsHot} s WHERE s.state = 'available' AND s.kind > seen.kind
    ORDER BY s.kind LIMIT 1
  ) next
  WHERE seen.n < ${limit}
)`;
}
