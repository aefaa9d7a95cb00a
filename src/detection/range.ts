import type { NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { matchFeeLegs } from './fee-legs.ts';
import type { Payers } from './payer-accounts.ts';
import { type MatchedPayment, matchRequests, recordPayments, recurringPayers } from './record.ts';
import type {
  BlockSource,
  ContractLog,
  DetectedPayment,
  LogWatcher,
  PaymentSink,
} from './types.ts';
import { settledByWatchers } from './watched.ts';

/** Payers asked of the node at once: a backlog's thousands of payments are asked in turns. */
const PAYER_LOOKUPS = 32;

/** What recording one block range needs: the indexer's own parts. */
export interface RangeDeps {
  readonly db: Database;
  readonly chains: ChainRegistry;
  readonly network: NetworkId;
  readonly source: BlockSource;
  readonly sink: PaymentSink;
  readonly watchers: readonly LogWatcher[];
}

/** The payments of a range and the watched contracts' logs, from one read of the node. */
export async function readRange(
  deps: RangeDeps,
  from: bigint,
  to: bigint,
): Promise<{ readonly payments: DetectedPayment[]; readonly logs: readonly ContractLog[] }> {
  const watched = deps.watchers.flatMap((w) => w.addresses);
  return watched.length > 0 && deps.source.scan
    ? deps.source.scan(from, to, watched)
    : { payments: await deps.source.events(from, to), logs: [] };
}

/**
 * Records what a range read holds, and moves the checkpoint to its end, in one transaction:
 * the payments matched to requests and fee legs, with who paid, and the watched contracts'
 * logs. The database is asked once per kind for the whole range, and the payments go in one
 * statement, whatever their number (a backlog's range may hold thousands). Returns how many
 * rows are new.
 */
export async function recordRange(
  deps: RangeDeps & { readonly now: Date },
  read: { readonly payments: readonly DetectedPayment[]; readonly logs: readonly ContractLog[] },
  to: bigint,
): Promise<number> {
  const { payments: events, logs } = read;
  const [requested, feeLegs] = await Promise.all([
    matchRequests(deps.db, deps.chains, deps.network, events),
    matchFeeLegs(deps.db, deps.chains, deps.network, events),
  ]);
  const matched = await settledByWatchers(deps.db, deps.watchers, requested, logs);
  // The recurring payers and the checkpoint's block, asked of the database and the node at
  // once; the node is asked who paid only where no schedule names the payer.
  const [recurring, toHash] = await Promise.all([
    recurringPayers(
      deps.db,
      matched.map((m) => m.request.id),
    ),
    deps.source.blockHash(to),
  ]);
  // A recurring execution's sender is our relayer: the payer is the subscriber, whose signed
  // permit it ran (their own wallet too); a watcher's payer likewise (a commerce capture's
  // buyer, not the operator that sent it). Otherwise the chain says who paid.
  const withPayers = await inTurns(matched, async (m): Promise<MatchedPayment> => {
    const known = m.payer ?? recurring.get(m.request.id);
    if (known) {
      const payers = { payerAddress: known, payerEoaAddress: known };
      return { ...m, event: { ...m.event, ...payers } };
    }
    const { bridgedFrom, ...payers } = await deps.source.payers(m.event);
    // A bridge's fill paid: cross-chain, from the fill's origin chain (its deposit's
    // transaction is the payer's bridge intent's, found when it is recorded).
    const bridge = bridgedFrom && {
      sourceNetwork:
        deps.chains.networkByChainId(bridgedFrom.originChainId)?.id ??
        String(bridgedFrom.originChainId),
      sourceTxHash: null,
    };
    return { ...m, event: { ...m.event, ...payers, ...(bridge && { bridge }) } };
  });
  const feeLegPayers = await inTurns(feeLegs, async (m) => ({
    ...m,
    event: { ...m.event, ...payersOnly(await deps.source.payers(m.event)) },
  }));
  const paymentBlocks = new Map(
    [...withPayers, ...feeLegPayers].map((m) => [m.event.blockNumber, m.event.blockHash]),
  );
  for (const log of logs) paymentBlocks.set(log.blockNumber, log.blockHash);
  paymentBlocks.set(to, toHash);
  return recordPayments(
    deps.db,
    { sink: deps.sink, now: deps.now, also: (tx) => recordWatched(deps, tx, logs) },
    withPayers,
    {
      network: deps.network,
      lastBlock: to,
      blocks: [...paymentBlocks].map(([number, hash]) => ({ number, hash })),
    },
    feeLegPayers,
  );
}

/** The watchers' part of a range, in the transaction that records it. */
async function recordWatched(
  deps: RangeDeps & { readonly now: Date },
  tx: Database,
  logs: readonly ContractLog[],
): Promise<number> {
  let recorded = 0;
  for (const watcher of deps.watchers) {
    const mine = new Set(watcher.addresses.map((a) => a.toLowerCase()));
    const own = logs.filter((log) => mine.has(log.address.toLowerCase()));
    if (own.length > 0) recorded += await watcher.recorded(tx, own, deps.now);
  }
  return recorded;
}

/** `work` over every item, `PAYER_LOOKUPS` at a time, answers in the items' order. */
async function inTurns<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += PAYER_LOOKUPS) {
    results.push(...(await Promise.all(items.slice(i, i + PAYER_LOOKUPS).map(work))));
  }
  return results;
}

/** Who paid, without what else the source found. */
function payersOnly({ payerAddress, payerEoaAddress }: Payers): Payers {
  return { payerAddress, payerEoaAddress };
}
