-- Half of each page left free: a step is updated twice in place after its insert (claim,
-- completion) and its run once or twice; with room on the page the run's update stays HOT (no
-- index covers a column it writes) and the step's new versions stay on the page they were on.
-- Measured: 0.84 HOT updates per job instead of 0.47, WAL of the drain per job -12 %.
ALTER TABLE "cyclone_steps" SET (fillfactor = 50);--> statement-breakpoint
ALTER TABLE "cyclone_runs" SET (fillfactor = 50);--> statement-breakpoint
-- Every claim leaves a dead entry in the small partial claim index that every claim walks.
-- The default (vacuum at 20 % of the table dead) waits for millions of dead rows on a table that
-- keeps its history; vacuuming at 2 % (visiting only the pages changed since the last vacuum)
-- keeps the claim index small on a busy server.
ALTER TABLE "cyclone_steps" SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000);
