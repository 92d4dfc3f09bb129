import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** One partition of a partitioned table, as the catalog describes it. */
export interface PartitionRow {
  readonly name: string;
  /** Its bound as Postgres prints it: `FOR VALUES FROM (...) TO (...)`, or `DEFAULT`. */
  readonly bound: string;
  /** Its storage parameters (`fillfactor=50`, ...), none as an empty list. */
  readonly options: readonly string[];
}

/**
 * The partitions of a table and their bounds, read from the catalog (the bounds are the catalog's
 * own; nothing else records them, so nothing else can disagree), with their storage parameters,
 * which a new partition takes from the default one.
 */
const statement = defineStatement<{ parent: string }, PartitionRow>(
  'list-partitions',
  (_t, p) => `
SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound,
       coalesce(c.reloptions, '{}') AS options
FROM pg_inherits i
JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = to_regclass(${p.parent})
ORDER BY c.relname
`,
);

/** Lists the partitions of `parent`, a qualified table name (see the statement). */
export function listPartitions(db: SqlRunner, parent: string): Promise<PartitionRow[]> {
  return db.rows(statement, { parent });
}
