DROP INDEX "cyclone_steps_claim_priority_idx";--> statement-breakpoint
DROP INDEX "cyclone_steps_claim_idx";--> statement-breakpoint
CREATE INDEX "cyclone_steps_claim_idx" ON "cyclone_steps" USING btree ("kind","priority" DESC NULLS LAST,"scheduled_at") WHERE "cyclone_steps"."state" = 'available';