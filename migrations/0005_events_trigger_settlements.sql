CREATE TABLE "cyclone_settlements" (
	"run_id" uuid PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cyclone_events" ADD COLUMN "trigger" text;