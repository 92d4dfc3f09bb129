-- One index for a run's steps and, with `item_index IS NULL`, its nodes without fan-out items:
-- every step insert and update wrote an entry in both; now in one (3 B-tree entries a job less).
-- On a large table the new index is built under the migration's lock: see the changeset.
DROP INDEX "cyclone_steps_run_nodes_idx";--> statement-breakpoint
DROP INDEX "cyclone_steps_run_idx";--> statement-breakpoint
CREATE INDEX "cyclone_steps_run_idx" ON "cyclone_steps" USING btree ("run_id","item_index");
