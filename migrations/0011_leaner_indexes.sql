-- Fewer index entries per job. Every step insert and update wrote an entry in both a run index
-- and a run-nodes index: one index on (run_id, item_index) now serves a run's steps and, with
-- `item_index IS NULL`, its nodes without fan-out items. Events are read only by run, in id
-- order: the primary key moves to (run_id, id) and the separate run index goes, so each event
-- writes one B-tree entry instead of two. On large tables the new indexes are built under the
-- migration's lock (see the changeset).
DROP INDEX "cyclone_steps_run_nodes_idx";--> statement-breakpoint
DROP INDEX "cyclone_steps_run_idx";--> statement-breakpoint
CREATE INDEX "cyclone_steps_run_idx" ON "cyclone_steps" USING btree ("run_id","item_index");--> statement-breakpoint
ALTER TABLE "cyclone_events" DROP CONSTRAINT "cyclone_events_pkey";--> statement-breakpoint
ALTER TABLE "cyclone_events" ADD CONSTRAINT "cyclone_events_pkey" PRIMARY KEY("run_id","id");--> statement-breakpoint
DROP INDEX "cyclone_events_run_idx";
