import { pgTable, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * The settlement outbox: runs whose steps ended in a statement that left follow-up work (fan-out
 * progress, a wait, child or fan-out node whose dependencies are met, the parent of a child run
 * that ended). The completion statement inserts the run here in the same statement that records
 * the completion; settling the run deletes the row in the transaction that settles it. A crash in
 * between leaves the row, and the scheduler's `settle-pending` scanner settles it.
 */
export const cycloneSettlements = pgTable('cyclone_settlements', {
  runId: uuid('run_id').primaryKey(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
