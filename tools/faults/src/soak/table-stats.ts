/** Sizes, dead tuples and vacuum counts of Cyclone's tables, from `pg_stat_user_tables`. */
import type pg from 'pg';

/** One table's figures. */
export interface TableStats {
  readonly table: string;
  readonly heapBytes: number;
  readonly indexBytes: number;
  /** Heap, indexes and TOAST. */
  readonly totalBytes: number;
  readonly live: number;
  readonly dead: number;
  readonly autovacuums: number;
  readonly autoanalyzes: number;
}

/** The figures of every `cyclone_*` table, by name. */
export async function readTableStats(pool: pg.Pool): Promise<TableStats[]> {
  const { rows } = await pool.query<Record<string, string>>(
    `SELECT relname, pg_relation_size(relid) AS heap, pg_indexes_size(relid) AS idx,
            pg_total_relation_size(relid) AS total, n_live_tup, n_dead_tup, autovacuum_count,
            autoanalyze_count
     FROM pg_stat_user_tables WHERE relname LIKE 'cyclone\\_%' ORDER BY relname`,
  );
  return rows.map((r) => ({
    table: r.relname!.replace(/^cyclone_/, ''),
    heapBytes: Number(r.heap),
    indexBytes: Number(r.idx),
    totalBytes: Number(r.total),
    live: Number(r.n_live_tup),
    dead: Number(r.n_dead_tup),
    autovacuums: Number(r.autovacuum_count),
    autoanalyzes: Number(r.autoanalyze_count),
  }));
}

/** The sums over the tables. */
export function totals(stats: readonly TableStats[]): {
  totalBytes: number;
  heapBytes: number;
  indexBytes: number;
  dead: number;
  autovacuums: number;
} {
  const sum = (pick: (s: TableStats) => number) => stats.reduce((n, s) => n + pick(s), 0);
  return {
    totalBytes: sum((s) => s.totalBytes),
    heapBytes: sum((s) => s.heapBytes),
    indexBytes: sum((s) => s.indexBytes),
    dead: sum((s) => s.dead),
    autovacuums: sum((s) => s.autovacuums),
  };
}
