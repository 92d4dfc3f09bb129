import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Named leader leases: one active scheduler among replicas holds `scheduler`. A holder renews its
 * lease every interval; another may take it once `expires_at` has passed. Giving it up ends it at
 * once (`expires_at = now()`) and keeps the row, so the next holder knows when the last one led.
 */
export const cycloneLeaders = pgTable('cyclone_leaders', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  /** The holder's last renewal (or the take-over): time up to which it is known to have led. */
  renewedAt: timestamp('renewed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  /** When the lease was last taken after a gap: the start of the current unbroken leadership. */
  ledSince: timestamp('led_since', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
