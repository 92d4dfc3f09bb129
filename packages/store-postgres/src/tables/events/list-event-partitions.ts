import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** One partition of `cyclone_events`, as the catalog describes it. */
export interface EventPartitionRow {
  readonly name: string;
  /** Its bound as Postgres prints it: `FOR VALUES FROM (...) TO (...)`, or `DEFAULT`. */
  readonly bound: string;
}

/**
 * The partitions of the events table and their bounds, read from the catalog (the bounds are the
 * catalog's own; nothing else records them, so nothing else can disagree).
 */
const statement = defineStatement<{ parent: string }, EventPartitionRow>(
  'list-event-partitions',
  (_t, p) => `
SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
FROM pg_inherits i
JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = to_regclass(${p.parent})
ORDER BY c.relname
`,
);

/** Lists the partitions of the events table (see the statement). */
export function listEventPartitions(db: SqlRunner): Promise<EventPartitionRow[]> {
  return db.rows(statement, { parent: db.tables.events });
}
