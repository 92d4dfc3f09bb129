-- Fair share per kind (cyclone_fair_shares) and the index its claim walks key by key.
CREATE TABLE "cyclone_fair_shares" (
	"kind" text PRIMARY KEY NOT NULL,
	"weights" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"cursor_key" text,
	"cursor_keyless" boolean DEFAULT false NOT NULL,
	"cursor_used" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "cyclone_steps_fair_idx" ON "cyclone_steps" USING btree ("kind","priority" DESC NULLS LAST,"concurrency_key","scheduled_at") WHERE "cyclone_steps"."state" = 'available';