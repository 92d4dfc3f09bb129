import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Named leader leases: one active scheduler among replicas holds `scheduler`. */
export const cycloneLeaders = pgTable('cyclone_leaders', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
});
