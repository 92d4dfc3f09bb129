-- Result caching (decisions 220-227): the outputs of cached task nodes by (kind, key), valid until
-- expires_at, and on each step its cache's ttl (null: not cached), the key it looked up, and
-- whether it completed from the cache.
CREATE TABLE "cyclone_cache" (
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"output" jsonb NOT NULL,
	"step_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "cyclone_cache_pkey" PRIMARY KEY("kind","key")
);
--> statement-breakpoint
ALTER TABLE "cyclone_steps" ADD COLUMN "cache_ttl_ms" bigint;--> statement-breakpoint
ALTER TABLE "cyclone_steps" ADD COLUMN "cache_key" text;--> statement-breakpoint
ALTER TABLE "cyclone_steps" ADD COLUMN "cached" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "cyclone_cache_expires_idx" ON "cyclone_cache" USING btree ("expires_at");