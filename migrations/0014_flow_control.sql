CREATE TABLE "cyclone_limits" (
	"kind" text PRIMARY KEY NOT NULL,
	"concurrency_max" integer,
	"concurrency_per_key" boolean DEFAULT false NOT NULL,
	"rate_limit" integer,
	"rate_period_ms" bigint,
	"rate_period" text,
	"rate_per_key" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cyclone_limits_some_check" CHECK ("cyclone_limits"."concurrency_max" IS NOT NULL OR "cyclone_limits"."rate_limit" IS NOT NULL),
	CONSTRAINT "cyclone_limits_concurrency_check" CHECK ("cyclone_limits"."concurrency_max" IS NULL OR "cyclone_limits"."concurrency_max" >= 1),
	CONSTRAINT "cyclone_limits_rate_check" CHECK (("cyclone_limits"."rate_limit" IS NULL AND "cyclone_limits"."rate_period_ms" IS NULL) OR ("cyclone_limits"."rate_limit" >= 1 AND "cyclone_limits"."rate_period_ms" >= 1))
);
--> statement-breakpoint
CREATE TABLE "cyclone_rate_starts" (
	"kind" text NOT NULL,
	"key" text,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "cyclone_steps_lease_idx";--> statement-breakpoint
ALTER TABLE "cyclone_steps" ADD COLUMN "concurrency_key" text;--> statement-breakpoint
ALTER TABLE "cyclone_steps" ADD COLUMN "priority" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "cyclone_rate_starts_idx" ON "cyclone_rate_starts" USING btree ("kind","key","at");--> statement-breakpoint
CREATE INDEX "cyclone_steps_claim_priority_idx" ON "cyclone_steps" USING btree ("kind","priority" DESC NULLS LAST,"scheduled_at") WHERE "cyclone_steps"."state" = 'available' AND "cyclone_steps"."priority" <> 0;--> statement-breakpoint
CREATE INDEX "cyclone_steps_running_idx" ON "cyclone_steps" USING btree ("kind","concurrency_key") WHERE "cyclone_steps"."state" = 'running';