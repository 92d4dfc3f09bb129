import type { Executor } from '../../db/executor.js';
import { defineStatement } from '../../db/statement.js';

/** A live worker and the kinds it handles. */
export interface UpsertWorkerParams {
  workerId: string;
  kinds: readonly string[];
}

/** Registers a worker, or refreshes it, with the kinds it handles. */
const statement = defineStatement<UpsertWorkerParams>(
  'upsert-worker',
  (t, p) => `
INSERT INTO ${t.workers} (id, kinds) VALUES (${p.workerId}, ${p.kinds}::text[])
ON CONFLICT (id) DO UPDATE SET kinds = EXCLUDED.kinds, last_seen_at = now()
`,
);

/** Registers (or refreshes) a live worker and the kinds it handles. */
export async function upsertWorker(db: Executor, p: UpsertWorkerParams): Promise<void> {
  await db.count(statement, p);
}
