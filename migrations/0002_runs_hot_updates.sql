DROP INDEX "cyclone_runs_state_created_idx";--> statement-breakpoint
DROP INDEX "cyclone_runs_deadline_idx";--> statement-breakpoint
CREATE INDEX "cyclone_runs_created_idx" ON "cyclone_runs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "cyclone_runs_deadline_idx" ON "cyclone_runs" USING btree ("deadline_at") WHERE "cyclone_runs"."deadline_at" IS NOT NULL;