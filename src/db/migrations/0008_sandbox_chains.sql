CREATE TABLE "sandbox_chains" (
	"network" text PRIMARY KEY NOT NULL,
	"rpc_url" text NOT NULL,
	"chain_instance" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL
);
