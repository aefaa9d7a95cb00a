import { and, eq, gt, sql } from 'drizzle-orm';
import type { NetworkId } from '../chains/networks.ts';
import type { Database } from '../db/client.ts';
import { chainBlocks, chainCheckpoints, feeLegPayments, payments } from '../db/schema.ts';
import type { LogWatcher, PaymentSink } from './types.ts';

/**
 * Undoes everything recorded above `fork` on a network after a reorganisation: payments are
 * deleted and the sink takes back what followed from them; the next scan records, and
 * announces, what the new chain holds.
 */
export async function rollBack(
  db: Database,
  deps: {
    readonly sink: PaymentSink;
    /** Their rows above the fork go too, and what followed from them is taken back, now. */
    readonly watched?: { readonly watchers: readonly LogWatcher[]; readonly now: Date };
  },
  network: NetworkId,
  fork: bigint,
): Promise<number> {
  return db.transaction(async (tx) => {
    let watched = 0;
    const { watchers = [], now } = deps.watched ?? {};
    for (const watcher of watchers) if (now) watched += await watcher.dropped(tx, fork, now);
    const dropped = await tx
      .delete(payments)
      .where(and(eq(payments.network, network), gt(payments.blockNumber, fork)))
      .returning({
        id: payments.id,
        requestRowId: payments.requestRowId,
        amount: payments.amount,
        requestAmount: payments.requestAmount,
      });
    await deps.sink.dropped(
      tx,
      dropped.map(({ id, requestRowId, amount, requestAmount }) => ({
        id,
        requestRowId,
        requestAmount: requestAmount ?? amount,
      })),
    );
    await tx
      .delete(feeLegPayments)
      .where(and(eq(feeLegPayments.network, network), gt(feeLegPayments.blockNumber, fork)));
    await tx
      .delete(chainBlocks)
      .where(and(eq(chainBlocks.network, network), gt(chainBlocks.number, fork)));
    await tx
      .insert(chainCheckpoints)
      .values({ network, lastBlock: fork })
      .onConflictDoUpdate({
        target: chainCheckpoints.network,
        set: { lastBlock: fork, updatedAt: sql`now()` },
      });
    return dropped.length + watched;
  });
}
