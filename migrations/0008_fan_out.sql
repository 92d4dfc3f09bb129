DROP INDEX "cyclone_steps_parent_idx";--> statement-breakpoint
CREATE INDEX "cyclone_steps_parent_state_idx" ON "cyclone_steps" USING btree ("parent_step_id","state","item_index") WHERE "cyclone_steps"."parent_step_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "cyclone_steps_run_nodes_idx" ON "cyclone_steps" USING btree ("run_id","created_at","id") WHERE "cyclone_steps"."item_index" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "cyclone_steps_parent_idx" ON "cyclone_steps" USING btree ("parent_step_id","item_index") WHERE "cyclone_steps"."parent_step_id" IS NOT NULL;