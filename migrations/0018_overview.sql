CREATE TABLE "cyclone_stats_minutes" (
	"minute" timestamp with time zone NOT NULL,
	"kind" text NOT NULL,
	"completed" bigint DEFAULT 0 NOT NULL,
	"failed" bigint DEFAULT 0 NOT NULL,
	"wait_buckets" bigint[] NOT NULL,
	CONSTRAINT "cyclone_stats_minutes_pkey" PRIMARY KEY("minute","kind"),
	CONSTRAINT "cyclone_stats_minutes_counts_check" CHECK ("cyclone_stats_minutes"."completed" >= 0 AND "cyclone_stats_minutes"."failed" >= 0 AND cardinality("cyclone_stats_minutes"."wait_buckets") = 64)
);
--> statement-breakpoint
ALTER TABLE "cyclone_workers" ADD COLUMN "host" text;--> statement-breakpoint
ALTER TABLE "cyclone_workers" ADD COLUMN "pid" integer;--> statement-breakpoint
ALTER TABLE "cyclone_workers" ADD COLUMN "concurrency" integer;