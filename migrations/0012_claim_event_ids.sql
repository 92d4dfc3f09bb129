ALTER TABLE "cyclone_steps" ADD COLUMN "started_event_id" bigint;--> statement-breakpoint
ALTER TABLE "cyclone_steps" ADD COLUMN "completed_event_id" bigint;