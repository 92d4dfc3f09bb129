CREATE TABLE "cyclone_leader_gaps" (
	"name" text NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone NOT NULL,
	CONSTRAINT "cyclone_leader_gaps_name_ended_at_pk" PRIMARY KEY("name","ended_at")
);
--> statement-breakpoint
ALTER TABLE "cyclone_leaders" ADD COLUMN "renewed_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "cyclone_leaders" ADD COLUMN "led_since" timestamp with time zone DEFAULT now() NOT NULL;