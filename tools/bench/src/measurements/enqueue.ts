/** Bulk enqueue: N no-op jobs with the system's fastest documented bulk API, timed. */
import type { SystemAdapter } from '../shared/types.js';

export async function bulkEnqueue(
  adapter: SystemAdapter,
  n: number,
): Promise<{ rate: number; seconds: number }> {
  const t0 = performance.now();
  await adapter.bulkEnqueue(n);
  const seconds = (performance.now() - t0) / 1000;
  const completed = await adapter.countCompleted();
  if (completed !== 0)
    throw new Error(`bulk enqueue: ${completed} jobs completed with no worker running`);
  return { rate: n / seconds, seconds };
}
