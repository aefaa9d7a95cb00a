import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { paymentIntents } from '../db/schema.ts';

export type IntentRow = typeof paymentIntents.$inferSelect;

/** The Safe transaction tracked for a link, if any (`intents.ts` records it). */
export async function trackedIntentOf(db: Database, linkId: string): Promise<IntentRow | null> {
  const [row] = await db
    .select()
    .from(paymentIntents)
    .where(and(eq(paymentIntents.securePaymentId, linkId), eq(paymentIntents.status, 'tracking')));
  return row ?? null;
}
