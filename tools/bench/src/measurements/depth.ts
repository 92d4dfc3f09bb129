/**
 * Depth: the processing throughput again, with many finished rows already in the system's own
 * tables. This is the one-off preparation of the database those rows live in (a template that
 * every depth measurement copies), reported against the empty-database figure.
 */
import { withClient } from '../shared/db.js';
import type { SystemAdapter } from '../shared/types.js';

export async function prepareDepthTemplate(
  adapter: SystemAdapter,
  url: string,
  rows: number,
): Promise<{ seconds: number }> {
  const t0 = performance.now();
  await adapter.setup();
  await adapter.fillFinished(rows);
  // Fresh statistics and visibility map, as autovacuum would have left a long-lived table.
  await withClient(url, (client) => client.query('VACUUM ANALYZE'));
  return { seconds: (performance.now() - t0) / 1000 };
}
