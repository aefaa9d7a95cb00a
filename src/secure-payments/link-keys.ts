import { and, asc, eq, gt, isNotNull, lte } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { idempotencyKeys, requests, securePayments } from '../db/schema.ts';
import type { HeldWrite } from '../idempotency/hooks.ts';
import { type ClaimRow, RETAIN_MS } from '../idempotency/records.ts';
import type { LinkKey } from './insert-link.ts';
import { createdLink } from './mint-link.ts';

/**
 * A link made under an `Idempotency-Key` keeps the key on its own row (schema/links.ts), so
 * that the key costs its write one index entry more, not a record of its own holding the
 * answer. A retry's write finds the key taken and writes nothing; its 201 is then rendered
 * again from the link, through the route's own schema: the same bytes, as long as the service's
 * pay page address is the same. Keys are kept 24 hours, as records are (records.ts).
 */

const linkByKey = (key: Pick<LinkKey, 'scope' | 'key'>) =>
  and(eq(securePayments.idempotencyScope, key.scope), eq(securePayments.idempotencyKey, key.key));

/**
 * Whether a link's key was held when its write found it so: by another link (whatever its age,
 * it keeps the index entry until cleared), or by a kept record of another kind of write.
 */
export async function linkKeyHeld(db: Database, key: LinkKey, now: Date): Promise<boolean> {
  const k = idempotencyKeys;
  const [links, records] = await Promise.all([
    db.select({ id: securePayments.id }).from(securePayments).where(linkByKey(key)).limit(1),
    db
      .select({ key: k.key })
      .from(k)
      .where(and(eq(k.scope, key.scope), eq(k.key, key.key), gt(k.expiresAt, now)))
      .limit(1),
  ]);
  return links.length + records.length > 0;
}

/**
 * The 201 of the link made under the claim's key, to replay, with the hash of the request that
 * made it; null when no link holds the key, or only one made 24 hours or more before.
 */
export async function heldLink(
  db: Database,
  payUrl: string,
  claim: ClaimRow,
): Promise<HeldWrite | null> {
  const now = new Date(claim.created_at);
  const [link] = await db
    .select({
      id: securePayments.id,
      token: securePayments.token,
      feePlan: securePayments.feePlan,
      hash: securePayments.idempotencyHash,
    })
    .from(securePayments)
    .where(and(linkByKey(claim), gt(securePayments.createdAt, keptSince(now))));
  if (link === undefined || link.hash === null) return null;
  const made = await db
    .select({ requestId: requests.requestId })
    .from(requests)
    .where(eq(requests.securePaymentId, link.id))
    .orderBy(asc(requests.position));
  const requestIds = made.map((row) => row.requestId);
  return {
    hash: link.hash,
    payload: { ...createdLink(payUrl, link.token, requestIds), feePlan: link.feePlan ?? null },
  };
}

/** Links made before this still hold a key until it is let go, but no longer answer for it. */
function keptSince(now: Date): Date {
  return new Date(now.getTime() - RETAIN_MS);
}

/**
 * Lets go the keys of links made 24 hours or more before `now` (the janitor's round), or, with
 * `key`, that key only (a write that found it held by such a link then writes again).
 */
export async function releaseLinkKeys(
  db: Database,
  now: Date,
  key?: Pick<LinkKey, 'scope' | 'key'>,
): Promise<number> {
  const released = await db
    .update(securePayments)
    .set({ idempotencyScope: null, idempotencyKey: null, idempotencyHash: null })
    .where(
      and(
        key === undefined ? isNotNull(securePayments.idempotencyKey) : linkByKey(key),
        lte(securePayments.createdAt, keptSince(now)),
      ),
    )
    .returning({ id: securePayments.id });
  return released.length;
}
