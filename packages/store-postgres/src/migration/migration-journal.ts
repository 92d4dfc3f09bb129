import { readFileSync } from 'node:fs';
import path from 'node:path';

/** One migration this package ships, as drizzle-kit's journal lists it. */
export interface ShippedMigration {
  /** The migration's name, e.g. `0005_events_trigger_settlements`. */
  readonly tag: string;
  /** drizzle-kit's timestamp of it; drizzle records it as the applied row's `created_at`. */
  readonly when: number;
}

/** The migrations in `folder` (its `meta/_journal.json`), oldest first. */
export function shippedMigrations(folder: string): ShippedMigration[] {
  const journal = JSON.parse(readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  return journal.entries.map((e) => ({ tag: e.tag, when: e.when })).sort((a, b) => a.when - b.when);
}

/**
 * The shipped migrations a database has not applied, given the newest applied one's timestamp
 * (null when none is applied). Drizzle applies in timestamp order and records each one's
 * timestamp, so everything newer than the latest record is pending.
 */
export function pendingMigrations<M extends Pick<ShippedMigration, 'when'>>(
  shipped: readonly M[],
  latestApplied: number | null,
): M[] {
  return shipped.filter((m) => latestApplied === null || m.when > latestApplied);
}
