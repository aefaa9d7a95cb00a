import { eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { safeTransactions } from '../db/schema.ts';

/** A Safe transaction `/pay` answered (its `safeTransaction`), kept whole. */
export interface RememberedSafeTx {
  readonly safeTxHash: string;
  readonly safeAddress: string;
  /** A decimal string, as `/pay` answers it. */
  readonly nonce: string;
  readonly [field: string]: unknown;
}

/**
 * Keeps the Safe transaction `/pay` answered (`isSafe=true`), so the tracker knows which Safe
 * signs a `safeTxHash` posted to `/intent`, and at which nonce, without the payer naming them,
 * and the link's 423 can hand the whole transaction to the owners still to sign it.
 * The hash commits to the Safe, the chain and the nonce, so a second answer with the same hash
 * is the same transaction: the first row stands.
 */
export async function rememberSafeTransaction(
  db: Database,
  link: { readonly id: string; readonly network: string },
  safeTx: RememberedSafeTx,
): Promise<void> {
  await db
    .insert(safeTransactions)
    .values({
      safeTxHash: safeTx.safeTxHash.toLowerCase(),
      securePaymentId: link.id,
      network: link.network,
      safeAddress: safeTx.safeAddress,
      nonce: BigInt(safeTx.nonce),
      transaction: { ...safeTx },
    })
    .onConflictDoNothing();
}

/** What `/pay` answered for a `safeTxHash`, if it did. */
export async function preparedSafeTransaction(db: Database, safeTxHash: string) {
  const [row] = await db
    .select()
    .from(safeTransactions)
    .where(eq(safeTransactions.safeTxHash, safeTxHash.toLowerCase()));
  return row ?? null;
}
