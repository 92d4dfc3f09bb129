import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** A live worker, the kinds it handles and where it runs. */
export interface UpsertWorkerParams {
  workerId: string;
  kinds: readonly string[];
  host: string | null;
  pid: number | null;
  concurrency: number | null;
}

/** Registers a worker, or refreshes it, with the kinds it handles. */
const statement = defineStatement<UpsertWorkerParams>(
  'upsert-worker',
  (t, p) => `
INSERT INTO ${t.workers} (id, kinds, host, pid, concurrency)
VALUES (${p.workerId}, ${p.kinds}::text[], ${p.host}, ${p.pid}::int, ${p.concurrency}::int)
ON CONFLICT (id) DO UPDATE
SET kinds = EXCLUDED.kinds, host = EXCLUDED.host, pid = EXCLUDED.pid,
    concurrency = EXCLUDED.concurrency, last_seen_at = now()
`,
);

/** Registers (or refreshes) a live worker and the kinds it handles. */
export async function upsertWorker(db: SqlRunner, p: UpsertWorkerParams): Promise<void> {
  await db.count(statement, p);
}
