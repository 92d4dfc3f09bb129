-- Idempotency keys move from a unique index on cyclone_runs to a table of their own (decision
-- 349): runs are to be partitioned by period, and a unique index on a partitioned table must hold
-- its partition key, which a key alone cannot. Submit inserts a run's key here first and the run
-- only for a key it inserted. The run keeps its key in `idempotency_key` for the reads that
-- return it; nothing makes that column unique any more.
--
-- The runs table is locked first, for the whole migration: no run with a key can be inserted
-- between the copy and the drop of the index, and the drop needs this lock anyway (a weaker lock
-- first and this one later could deadlock with a settlement that locked a run). The copy reads the
-- keys through the index it then drops. Processes of a version before this migration cannot
-- submit once it is applied (their insert names the dropped index); see decision 411.
LOCK TABLE "cyclone_runs" IN ACCESS EXCLUSIVE MODE;--> statement-breakpoint
CREATE TABLE "cyclone_run_keys" (
	"key" text PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL
);
--> statement-breakpoint
INSERT INTO "cyclone_run_keys" ("key", "run_id")
SELECT "idempotency_key", "id" FROM "cyclone_runs" WHERE "idempotency_key" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "cyclone_run_keys_run_idx" ON "cyclone_run_keys" USING btree ("run_id");--> statement-breakpoint
DROP INDEX "cyclone_runs_idempotency_key_idx";
