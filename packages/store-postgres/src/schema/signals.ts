import {
  bigserial,
  index,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

/**
 * Signals sent to a run. A signal that no node waits for yet is kept here and consumed by the
 * first node that waits for it.
 */
export const cycloneSignals = pgTable(
  'cyclone_signals',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: uuid('run_id').notNull(),
    name: text('name').notNull(),
    /**
     * The sender's id of the signal (`client.signal(..., { id })`); the same id twice in a run is
     * delivered once. Null for a signal sent without one.
     */
    signalId: text('signal_id'),
    payload: jsonb('payload')
      .notNull()
      .default(sql`'null'::jsonb`),
    /** The step that consumed it; null while buffered. */
    consumedBy: uuid('consumed_by'),
    consumedAt: timestamp('consumed_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('cyclone_signals_buffered_idx')
      .on(t.runId, t.name, t.id)
      .where(sql`${t.consumedBy} IS NULL`),
    uniqueIndex('cyclone_signals_signal_id_idx')
      .on(t.runId, t.signalId)
      .where(sql`${t.signalId} IS NOT NULL`),
  ],
);
