CREATE INDEX "destination_nonces_expires_at_index" ON "destination_nonces" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "sessions_expires_at_index" ON "sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "wallet_challenges_expires_at_index" ON "wallet_challenges" USING btree ("expires_at");