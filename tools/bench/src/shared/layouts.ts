import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { defaultMigrationsFolder, migrate, PostgresStore } from '@cyclone/store-postgres';

/** The migration that partitions runs and steps by their run's period. */
export const Partitioning = '0024_runs_and_steps_partitioned_by_run_period';
const DAY = 86_400_000;

/** The smallest UUID version 7 of millisecond `ms`: a period's bound. */
export function periodBound(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/** Migrates with the shipped migrations before the partitioning one; returns that one's time. */
async function migrateBefore(pool: pg.Pool): Promise<number> {
  const work = mkdtempSync(path.join(tmpdir(), 'cyclone-layout-'));
  const folder = path.join(work, 'migrations');
  cpSync(defaultMigrationsFolder(), folder, { recursive: true });
  const journalFile = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  const cut = journal.entries.findIndex((e) => e.tag === Partitioning);
  if (cut < 0) throw new Error(`no migration ${Partitioning}`);
  const when = journal.entries[cut]!.when;
  journal.entries = journal.entries.slice(0, cut);
  writeFileSync(journalFile, JSON.stringify(journal));
  try {
    await migrate({ pool, migrationsFolder: folder });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return when;
}

/**
 * Migrates an empty database into one of the two layouts of runs and steps. `flat`: the tables as
 * they were before they were partitioned, the partitioning migration recorded as applied so that a
 * later `migrate()` leaves them so (undo with {@link unrecordPartitioning}). `period`: partitioned,
 * the initial partitions ending `days` days ago (by the documented validated constraint) and a
 * partition a day from there to two days ahead, as the period scanner makes them; one finished run
 * a day keeps each past day's partitions, which the scanner drops when they hold none.
 */
export async function makeLayout(
  pool: pg.Pool,
  layout: 'flat' | 'period',
  days: number,
): Promise<void> {
  const when = await migrateBefore(pool);
  if (layout === 'flat') {
    await pool.query(
      `INSERT INTO cyclone_migrations (hash, created_at) VALUES ('flat-layout', $1)`,
      [when],
    );
    return;
  }
  const today = Math.floor(Date.now() / DAY) * DAY;
  const from = today - days * DAY;
  for (const table of ['cyclone_steps', 'cyclone_runs']) {
    await pool.query(
      `ALTER TABLE ${table} ADD CONSTRAINT ${table}_id_bound
       CHECK (id < '${periodBound(from)}') NOT VALID`,
    );
    await pool.query(`ALTER TABLE ${table} VALIDATE CONSTRAINT ${table}_id_bound`);
  }
  await migrate({ pool });
  const store = new PostgresStore({ pool });
  for (let now = from; now <= today; now += DAY) {
    const { deferred } = await store.maintainPeriodPartitions({ now, compactRuns: 0 });
    if (deferred.length > 0) throw new Error(JSON.stringify(deferred));
    // Created and ended an hour into its day, so a retention sees it as that day's.
    const at = now + 3_600_000;
    const ms = at.toString(16).padStart(12, '0');
    await pool.query(
      `INSERT INTO cyclone_runs (id, workflow, state, open_steps, created_at, ended_at)
       VALUES ($1, 'bench.history', 'completed', 0, to_timestamp($2 / 1000.0),
               to_timestamp($2 / 1000.0))`,
      [`${ms.slice(0, 8)}-${ms.slice(8, 12)}-7000-8000-000000000000`, at],
    );
  }
}

/** Takes back a flat layout's record of the partitioning migration, so `migrate()` applies it. */
export async function unrecordPartitioning(pool: pg.Pool): Promise<void> {
  await pool.query(`DELETE FROM cyclone_migrations WHERE hash = 'flat-layout'`);
}
