import { boolean, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

const tz = { withTimezone: true, mode: 'date' } as const;

/**
 * The kinds under fair share, one row per kind: their steps are claimed by concurrency key in turn
 * (`claim-fair-steps`), each key taking up to its weight (`weights`, default 1) of steps per turn.
 * The turn is kept here, so every worker process takes the keys in the same round: the key whose
 * turn it is (`cursor_key`; the group of steps without a key when `cursor_keyless`; neither, from
 * the start) and how many steps it has taken in that turn (`cursor_used`). A claim of the kind
 * locks the row (`FOR UPDATE SKIP LOCKED`) and moves the turn on.
 */
export const cycloneFairShares = pgTable('cyclone_fair_shares', {
  kind: text('kind').primaryKey(),
  /** A key's weight by key; keys not named weigh 1, as does the group of steps without a key. */
  weights: jsonb('weights').notNull().default({}),
  cursorKey: text('cursor_key'),
  cursorKeyless: boolean('cursor_keyless').notNull().default(false),
  cursorUsed: integer('cursor_used').notNull().default(0),
  updatedAt: timestamp('updated_at', tz).notNull().defaultNow(),
});
