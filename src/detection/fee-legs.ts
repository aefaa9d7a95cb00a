import type { NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { inChunks } from '../db/chunks.ts';
import type { Database } from '../db/client.ts';
import { feeLegPayments } from '../db/schema.ts';
import { type FeeLegRow, feeLegsByReferenceTopics } from '../fees/legs.ts';
import type { DetectedPayment } from './types.ts';

/**
 * Payments of fee legs (src/fees/legs.ts): found by their own payment references, recorded
 * beside the payments of requests and dropped with their blocks on a reorganisation.
 */

/** A payment on a fee leg's reference (src/fees/legs.ts), with the leg it pays. */
export interface MatchedFeeLeg {
  readonly event: DetectedPayment;
  readonly leg: FeeLegRow;
}

/**
 * Fee legs of a network whose reference topics appear among the events, paid as a leg must be:
 * its token, to its recipient, not converted.
 */
export async function matchFeeLegs(
  db: Database,
  chains: ChainRegistry,
  network: NetworkId,
  events: readonly DetectedPayment[],
): Promise<MatchedFeeLeg[]> {
  const topics = [...new Set(events.map((e) => e.referenceTopic.toLowerCase()))];
  const rows = await inChunks(topics, (chunk) => feeLegsByReferenceTopics(db, network, chunk));
  if (rows.length === 0) return [];
  const byTopic = new Map(rows.map((row) => [row.referenceTopic, row]));
  return events.flatMap((event) => {
    const leg = byTopic.get(event.referenceTopic.toLowerCase());
    const currency = leg ? chains.currency(leg.currency) : undefined;
    if (!leg || !currency || event.conversion || event.tokenAddress === null) return [];
    const paid =
      sameAddress(event.tokenAddress, currency.address) && sameAddress(event.payee, leg.recipient);
    return paid ? [{ event, leg }] : [];
  });
}

/** EVM addresses compare case-blind; Tron's base58 is case. */
export const sameAddress = (a: string, b: string) =>
  a.startsWith('0x') ? a.toLowerCase() === b.toLowerCase() : a === b;

/** Records payments of fee legs; one already recorded (same network, tx, log) is skipped. */
export async function recordFeeLegs(
  tx: Database,
  matched: readonly MatchedFeeLeg[],
): Promise<number> {
  if (matched.length === 0) return 0;
  const inserted = await tx
    .insert(feeLegPayments)
    .values(
      matched.map(({ event, leg }) => ({
        feeLegId: leg.id,
        network: event.network,
        txHash: event.txHash,
        logIndex: event.logIndex,
        blockNumber: event.blockNumber,
        amount: event.amount,
        payerAddress: event.payerAddress,
        timestamp: event.timestamp,
      })),
    )
    .onConflictDoNothing({
      target: [feeLegPayments.network, feeLegPayments.txHash, feeLegPayments.logIndex],
    })
    .returning({ id: feeLegPayments.id });
  return inserted.length;
}
