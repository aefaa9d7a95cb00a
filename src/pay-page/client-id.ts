import { eq, sql } from 'drizzle-orm';
import { createClientId } from '../auth/client-ids.ts';
import type { Database } from '../db/client.ts';
import { accounts, clientIds } from '../db/schema.ts';

/** Serialises processes that start together on one Postgres: one of them creates the ID. */
const LOCK_KEY = 'payreq:pay-page-client-id';

/**
 * The hosted pay page is a client of our public API like any other: it calls with a client ID
 * of its own, allowed only on PAY_URL's origin. That one client ID reads and pays any link by
 * its token (the token is the payer's capability) and is refused everywhere else. Made once
 * per deployment, under an account of its own; a changed PAY_URL moves its allowed origin.
 */
export async function ensurePayPageClientId(db: Database, payUrl: string): Promise<string> {
  const origin = new URL(payUrl).origin;
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${LOCK_KEY}, 0))`);
    const [existing] = await tx.select().from(clientIds).where(eq(clientIds.firstParty, true));
    if (existing) {
      if (existing.allowedDomains.length !== 1 || existing.allowedDomains[0] !== origin) {
        await tx
          .update(clientIds)
          .set({ allowedDomains: [origin] })
          .where(eq(clientIds.id, existing.id));
      }
      return existing.clientId;
    }
    // An account of its own, with no API key: nothing but this client ID acts for it.
    const [account] = await tx
      .insert(accounts)
      .values({ name: 'Hosted pay page' })
      .returning({ id: accounts.id });
    if (!account) throw new Error('account insert returned no row');
    const accountId = account.id;
    // Made as a backend client ID, then given its origin in the same transaction: the rules
    // for origins users register (https only, but for localhost) do not bind PAY_URL, which the
    // operator may serve over plain http behind a proxy.
    const created = await createClientId(tx, {
      accountId,
      label: 'Hosted pay page',
      allowedDomains: [],
    });
    await tx
      .update(clientIds)
      .set({ firstParty: true, allowedDomains: [origin] })
      .where(eq(clientIds.id, created.id));
    return created.clientId;
  });
}
