CREATE TABLE "cyclone_schedule_fires" (
	"schedule_id" text NOT NULL,
	"fire_at" timestamp with time zone NOT NULL,
	"outcome" text NOT NULL,
	"run_id" uuid,
	"late" boolean DEFAULT false NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cyclone_schedule_fires_schedule_id_fire_at_pk" PRIMARY KEY("schedule_id","fire_at"),
	CONSTRAINT "cyclone_schedule_fires_outcome_check" CHECK ("outcome" IN ('submitted', 'skipped', 'failed')),
	CONSTRAINT "cyclone_schedule_fires_run_check" CHECK (("cyclone_schedule_fires"."outcome" = 'submitted') = ("cyclone_schedule_fires"."run_id" IS NOT NULL))
);
--> statement-breakpoint
ALTER TABLE "cyclone_schedules" ALTER COLUMN "overlap" SET DEFAULT 'skip';--> statement-breakpoint
ALTER TABLE "cyclone_schedules" ALTER COLUMN "catch_up_limit" SET DEFAULT 100;--> statement-breakpoint
ALTER TABLE "cyclone_schedules" ADD COLUMN "catch_up" text DEFAULT 'latest' NOT NULL;--> statement-breakpoint
ALTER TABLE "cyclone_schedules" ADD COLUMN "last_fire_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "cyclone_schedules" ADD CONSTRAINT "cyclone_schedules_catch_up_check" CHECK ("catch_up" IN ('none', 'latest', 'all'));--> statement-breakpoint
ALTER TABLE "cyclone_schedules" ADD CONSTRAINT "cyclone_schedules_catch_up_limit_check" CHECK ("cyclone_schedules"."catch_up_limit" >= 0);