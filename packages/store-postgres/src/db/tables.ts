/** Quotes a Postgres identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The qualified names of Cyclone's tables in one Postgres schema. Queries are written against
 * these, so Cyclone can live in any schema without touching a connection's `search_path`.
 */
export interface Tables {
  readonly schema: string;
  /**
   * Every run, open or history: where reads look (`getRun`, the lists, explain). Under the
   * `hot-and-history` layout the parent of {@link Tables.runsHot} and the history.
   */
  readonly runs: string;
  /**
   * The runs the store writes and the open work it looks for: every statement that inserts,
   * updates, deletes or locks a run names this table. The same table as {@link Tables.runs} in
   * the `one-table` layout (decision 426).
   */
  readonly runsHot: string;
  /** The idempotency keys of runs: what makes a key unique (decision 349). */
  readonly runKeys: string;
  /** Every step, open or history: where reads look (see {@link Tables.runs}). */
  readonly steps: string;
  /** The steps the store writes, claims and scans for open work (see {@link Tables.runsHot}). */
  readonly stepsHot: string;
  readonly workflows: string;
  readonly signals: string;
  readonly events: string;
  /**
   * The partitions of `cyclone_events` that retention empties row by row: the one holding the
   * events stored before events were partitioned (and every run id below its bound), and the
   * default one (run ids in no period). Every other partition is a period, dropped whole.
   */
  readonly eventsInitial: string;
  readonly eventsDefault: string;
  /** The sequence of event ids, as an SQL literal for `nextval(...)`. */
  readonly eventIds: string;
  /** The view of a run's whole history: stored events and those its rows tell. */
  readonly history: string;
  readonly schedules: string;
  readonly scheduleFires: string;
  readonly leaders: string;
  readonly leaderGaps: string;
  readonly workers: string;
  readonly settlements: string;
  readonly limits: string;
  readonly rateStarts: string;
  /** The kinds under fair share, with whose turn it is. */
  readonly fairShares: string;
  /** The result cache: outputs of cached task nodes by kind and key. */
  readonly cache: string;
  /** Throughput and queue wait per minute and kind, as workers flush them. */
  readonly statsMinutes: string;
  /** Where `migrate()` records the applied migrations. */
  readonly migrations: string;
}

/**
 * How runs and steps are stored. `one-table`: each in one table, as every migration so far makes
 * them. `hot-and-history` (decision 426): each table a parent of two partitions, the hot table
 * (`cyclone_runs_hot`, `cyclone_steps_hot`) that the store writes and the history that finished
 * runs move to; no migration makes it yet, and only the store's tests of that layout use it.
 */
export type TableLayout = 'one-table' | 'hot-and-history';

/** Builds the {@link Tables} of a schema (default `public`) in a layout (default `one-table`). */
export function tablesIn(schema = 'public', layout: TableLayout = 'one-table'): Tables {
  const q = (table: string) => `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const hot = (table: string) => q(layout === 'hot-and-history' ? `${table}_hot` : table);
  return {
    schema,
    runs: q('cyclone_runs'),
    runsHot: hot('cyclone_runs'),
    runKeys: q('cyclone_run_keys'),
    steps: q('cyclone_steps'),
    stepsHot: hot('cyclone_steps'),
    workflows: q('cyclone_workflows'),
    signals: q('cyclone_signals'),
    events: q('cyclone_events'),
    eventsInitial: q('cyclone_events_initial'),
    eventsDefault: q('cyclone_events_default'),
    eventIds: `'${q('cyclone_events_id_seq').replaceAll("'", "''")}'`,
    history: q('cyclone_history'),
    schedules: q('cyclone_schedules'),
    scheduleFires: q('cyclone_schedule_fires'),
    leaders: q('cyclone_leaders'),
    leaderGaps: q('cyclone_leader_gaps'),
    workers: q('cyclone_workers'),
    settlements: q('cyclone_settlements'),
    limits: q('cyclone_limits'),
    rateStarts: q('cyclone_rate_starts'),
    fairShares: q('cyclone_fair_shares'),
    cache: q('cyclone_cache'),
    statsMinutes: q('cyclone_stats_minutes'),
    migrations: q('cyclone_migrations'),
  };
}
