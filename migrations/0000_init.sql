CREATE TABLE "cyclone_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"step_id" uuid,
	"node" text,
	"type" text NOT NULL,
	"from_state" text,
	"to_state" text,
	"error_kind" text,
	"detail" jsonb,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cyclone_leaders" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cyclone_runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workflow" text NOT NULL,
	"definition_hash" text,
	"state" text DEFAULT 'running' NOT NULL,
	"input" jsonb DEFAULT 'null'::jsonb NOT NULL,
	"error_kind" text,
	"error" text,
	"failed_node" text,
	"parent_run_id" uuid,
	"parent_step_id" uuid,
	"idempotency_key" text,
	"deadline_at" timestamp with time zone,
	"max_reclaims" integer,
	"open_steps" integer NOT NULL,
	"failure_count" integer DEFAULT 0 NOT NULL,
	"reclaim_count" integer DEFAULT 0 NOT NULL,
	"paused_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	CONSTRAINT "cyclone_runs_state_check" CHECK ("state" IN ('running', 'completed', 'failed', 'cancelled', 'paused')),
	CONSTRAINT "cyclone_runs_error_kind_check" CHECK ("error_kind" IS NULL OR "error_kind" IN ('retryable', 'permanent', 'deadline', 'reclaim_limit', 'snooze', 'transient')),
	CONSTRAINT "cyclone_runs_open_steps_check" CHECK ("cyclone_runs"."open_steps" >= 0)
);
--> statement-breakpoint
CREATE TABLE "cyclone_schedules" (
	"id" text PRIMARY KEY NOT NULL,
	"cron" text NOT NULL,
	"timezone" text DEFAULT 'UTC' NOT NULL,
	"workflow" text,
	"kind" text,
	"input" jsonb DEFAULT 'null'::jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"overlap" text DEFAULT 'allow' NOT NULL,
	"catch_up_limit" integer DEFAULT 1 NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"next_run_at" timestamp with time zone,
	"last_run_at" timestamp with time zone,
	"last_run_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cyclone_schedules_overlap_check" CHECK ("overlap" IN ('skip', 'allow', 'cancel_previous')),
	CONSTRAINT "cyclone_schedules_target_check" CHECK (("cyclone_schedules"."workflow" IS NULL) <> ("cyclone_schedules"."kind" IS NULL))
);
--> statement-breakpoint
CREATE TABLE "cyclone_signals" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"name" text NOT NULL,
	"payload" jsonb DEFAULT 'null'::jsonb NOT NULL,
	"consumed_by" uuid,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cyclone_steps" (
	"id" uuid PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"node" text NOT NULL,
	"node_type" text NOT NULL,
	"kind" text,
	"state" text NOT NULL,
	"depends_on" text[] DEFAULT '{}'::text[] NOT NULL,
	"deps_remaining" integer DEFAULT 0 NOT NULL,
	"on_dep_failure" text DEFAULT 'fail_run' NOT NULL,
	"parent_step_id" uuid,
	"item_index" integer,
	"item" jsonb,
	"max_parallel" integer,
	"child_run_id" uuid,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"reclaims" integer DEFAULT 0 NOT NULL,
	"timeout_ms" integer,
	"backoff" jsonb,
	"scheduled_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claim_token" uuid,
	"claimed_by" text,
	"lease_expires_at" timestamp with time zone,
	"output" jsonb,
	"error" text,
	"error_kind" text,
	"panic_stack" text,
	"timed_out" boolean DEFAULT false NOT NULL,
	"wait_signals" text[],
	"wait_n" integer,
	"wait_payloads" jsonb,
	"max_wait_ms" bigint,
	"wait_deadline_at" timestamp with time zone,
	"wait_for_ms" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	CONSTRAINT "cyclone_steps_state_check" CHECK ("state" IN ('pending', 'available', 'running', 'waiting_signal', 'waiting_timer', 'waiting_child', 'paused', 'completed', 'discarded', 'cancelled')),
	CONSTRAINT "cyclone_steps_error_kind_check" CHECK ("error_kind" IS NULL OR "error_kind" IN ('retryable', 'permanent', 'deadline', 'reclaim_limit', 'snooze', 'transient')),
	CONSTRAINT "cyclone_steps_node_type_check" CHECK ("node_type" IN ('task', 'item', 'fan_out', 'child', 'wait_signal', 'wait_any', 'wait_n', 'wait_timer')),
	CONSTRAINT "cyclone_steps_on_dep_failure_check" CHECK ("on_dep_failure" IN ('fail_run', 'cancel_branch')),
	CONSTRAINT "cyclone_steps_attempts_check" CHECK ("cyclone_steps"."attempts" >= 0 AND "cyclone_steps"."max_attempts" >= 1),
	CONSTRAINT "cyclone_steps_deps_remaining_check" CHECK ("cyclone_steps"."deps_remaining" >= 0)
);
--> statement-breakpoint
CREATE TABLE "cyclone_workflows" (
	"hash" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"definition" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "cyclone_events_run_idx" ON "cyclone_events" USING btree ("run_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "cyclone_runs_idempotency_key_idx" ON "cyclone_runs" USING btree ("idempotency_key") WHERE "cyclone_runs"."idempotency_key" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "cyclone_runs_state_created_idx" ON "cyclone_runs" USING btree ("state","created_at");--> statement-breakpoint
CREATE INDEX "cyclone_runs_workflow_created_idx" ON "cyclone_runs" USING btree ("workflow","created_at");--> statement-breakpoint
CREATE INDEX "cyclone_runs_parent_idx" ON "cyclone_runs" USING btree ("parent_run_id") WHERE "cyclone_runs"."parent_run_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "cyclone_runs_deadline_idx" ON "cyclone_runs" USING btree ("deadline_at") WHERE "cyclone_runs"."deadline_at" IS NOT NULL AND "cyclone_runs"."state" IN ('running', 'paused');--> statement-breakpoint
CREATE INDEX "cyclone_schedules_due_idx" ON "cyclone_schedules" USING btree ("next_run_at") WHERE "cyclone_schedules"."enabled";--> statement-breakpoint
CREATE INDEX "cyclone_signals_buffered_idx" ON "cyclone_signals" USING btree ("run_id","name","id") WHERE "cyclone_signals"."consumed_by" IS NULL;--> statement-breakpoint
CREATE INDEX "cyclone_steps_claim_idx" ON "cyclone_steps" USING btree ("kind","scheduled_at") WHERE "cyclone_steps"."state" = 'available';--> statement-breakpoint
CREATE INDEX "cyclone_steps_run_idx" ON "cyclone_steps" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "cyclone_steps_parent_idx" ON "cyclone_steps" USING btree ("parent_step_id","item_index") WHERE "cyclone_steps"."parent_step_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "cyclone_steps_lease_idx" ON "cyclone_steps" USING btree ("lease_expires_at") WHERE "cyclone_steps"."state" = 'running';--> statement-breakpoint
CREATE INDEX "cyclone_steps_timer_idx" ON "cyclone_steps" USING btree ("scheduled_at") WHERE "cyclone_steps"."state" = 'waiting_timer';--> statement-breakpoint
CREATE INDEX "cyclone_steps_wait_deadline_idx" ON "cyclone_steps" USING btree ("wait_deadline_at") WHERE "cyclone_steps"."state" IN ('waiting_signal', 'waiting_child') AND "cyclone_steps"."wait_deadline_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "cyclone_steps_discarded_idx" ON "cyclone_steps" USING btree ("error_kind","ended_at") WHERE "cyclone_steps"."state" = 'discarded';