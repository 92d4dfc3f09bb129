import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Built workflow definitions by hash. Runs refer to their definition here, so a definition is
 * stored once however many runs use it, and a run keeps the exact shape it was submitted with.
 */
export const cycloneWorkflows = pgTable('cyclone_workflows', {
  hash: text('hash').primaryKey(),
  name: text('name').notNull(),
  definition: jsonb('definition').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
