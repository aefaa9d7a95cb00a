CREATE TABLE "multicall_children" (
	"parent_id" uuid NOT NULL,
	"child_id" uuid NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "multicall_children_parent_id_position_pk" PRIMARY KEY("parent_id","position")
);
--> statement-breakpoint
ALTER TABLE "secure_payments" ADD COLUMN "multicall" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "secure_payments" ADD COLUMN "execution_kind" text;--> statement-breakpoint
ALTER TABLE "multicall_children" ADD CONSTRAINT "multicall_children_parent_id_secure_payments_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."secure_payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "multicall_children" ADD CONSTRAINT "multicall_children_child_id_secure_payments_id_fk" FOREIGN KEY ("child_id") REFERENCES "public"."secure_payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "multicall_children_child_id_index" ON "multicall_children" USING btree ("child_id");