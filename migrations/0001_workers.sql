CREATE TABLE "cyclone_workers" (
	"id" text PRIMARY KEY NOT NULL,
	"kinds" text[] NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL
);
