import type { Clock } from '../base/clock.ts';
import type { NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { type MatchedFeeLeg, matchFeeLegs } from './fee-legs.ts';
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
  /** Payments and logs recorded a transaction (`TURN_ROWS` unless told). */
  readonly turnRows?: number;
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
 * Records what a range read holds, and moves the checkpoint to its end: the payments matched
 * to requests and fee legs, with who paid, and the watched contracts' logs. The database is
 * asked once per kind for the whole range. A range is recorded in turns of whole blocks, each
 * one transaction that moves the checkpoint to its last block, and while one turn is written
 * the next one's payers are asked of the node: a backlog's hundred thousand payments neither
 * wait for all their payers before the first is written nor hold one transaction. Its rows go
 * a few statements a turn, whatever their number. `committed` is told each turn's new rows and
 * last block as it commits (its webhooks can go). Returns how many rows are new.
 */
export async function recordRange(
  deps: RangeDeps & { readonly clock: Clock },
  read: { readonly payments: readonly DetectedPayment[]; readonly logs: readonly ContractLog[] },
  to: bigint,
  committed?: (turn: { readonly recorded: number; readonly lastBlock: bigint }) => void,
): Promise<number> {
  const { payments: events, logs } = read;
  // The checkpoint's block, asked of the node while the database is asked the rest.
  const toHash = deps.source.blockHash(to);
  toHash.catch(() => {});
  const [requested, feeLegs] = await Promise.all([
    matchRequests(deps.db, deps.chains, deps.network, events),
    matchFeeLegs(deps.db, deps.chains, deps.network, events),
  ]);
  // Recurring payers are asked of every matched request at once (those a watcher leaves out
  // go unused): one round trip less before the first turn is written. A range of a few
  // payments (a new block's) asks the node who paid beside them too: a payment the answers
  // then say a watcher or a schedule paid was asked of the node for nothing.
  const few = requested.length + feeLegs.length <= PAYER_LOOKUPS;
  const early = earlyPayers(deps, few ? [...requested, ...feeLegs] : []);
  // A few payments' sink reads what it can now, beside the node (a backlog's, in its turns).
  const [matched, recurring, sink] = await Promise.all([
    settledByWatchers(deps.db, deps.watchers, requested, logs),
    recurringPayers(
      deps.db,
      requested.map((m) => m.request.id),
    ),
    few && requested.length > 0 && deps.sink.readAhead
      ? deps.sink.readAhead(
          deps.db,
          requested.map((m) => m.request),
        )
      : deps.sink,
  ]);
  const turns = inTurnsOfBlocks({ matched, feeLegs, logs }, deps.turnRows ?? TURN_ROWS);
  let recorded = 0;
  // Ends the next turn's payer lookups when a turn's write fails: the pass is over, and the
  // poller's next pass asks them again.
  const abandon = new AbortController();
  const lookups = { ...deps, signal: abandon.signal, early };
  let next = withPayers(lookups, recurring, turns[0]);
  try {
    for (const [i, turn] of turns.entries()) {
      const ready = await next;
      const following = turns[i + 1];
      if (following) {
        next = withPayers(lookups, recurring, following);
        // Awaited at the next turn; a failed write ends the pass before then.
        next.catch(() => {});
      }
      const blocks = new Map(
        [...ready.matched, ...ready.feeLegs].map((m) => [m.event.blockNumber, m.event.blockHash]),
      );
      for (const log of turn.logs) blocks.set(log.blockNumber, log.blockHash);
      if (!following) blocks.set(to, await toHash);
      const lastBlock = following ? turn.lastBlock : to;
      // Each turn's own time: a backlog's last turn commits seconds after its first, and what
      // it hands the dispatcher is leased from when it is written.
      const now = deps.clock.now();
      const inTurn = await recordPayments(
        deps.db,
        {
          sink,
          now,
          ...(turn.logs.length > 0 && {
            also: (tx: Database) => recordWatched(deps.watchers, tx, turn.logs, now),
          }),
        },
        ready.matched,
        {
          network: deps.network,
          lastBlock,
          blocks: [...blocks].map(([number, hash]) => ({ number, hash })),
        },
        ready.feeLegs,
      );
      recorded += inTurn;
      committed?.({ recorded: inTurn, lastBlock });
    }
  } finally {
    abandon.abort(new Error('the range was left'));
  }
  return recorded;
}

/** Payments and logs recorded a transaction, at most a block's more: a turn of a range. */
const TURN_ROWS = 2_000;

interface Turn {
  readonly matched: readonly MatchedPayment[];
  readonly feeLegs: readonly MatchedFeeLeg[];
  readonly logs: readonly ContractLog[];
  /** The highest block the turn holds anything of. */
  readonly lastBlock: bigint;
}

type Held = { matched: MatchedPayment[]; feeLegs: MatchedFeeLeg[]; logs: ContractLog[] };

const nothingHeld = (): Held => ({ matched: [], feeLegs: [], logs: [] });

/**
 * A range's payments, fee legs and logs in turns of whole blocks, in block order, each turn
 * holding at least `turnRows` of them but the last (a block is never split: what one block
 * holds, a commerce capture's payment and its escrow's log, is recorded together). Always one
 * turn at least, empty when the range holds nothing.
 */
function inTurnsOfBlocks(
  range: {
    readonly matched: readonly MatchedPayment[];
    readonly feeLegs: readonly MatchedFeeLeg[];
    readonly logs: readonly ContractLog[];
  },
  turnRows: number,
): Turn[] {
  const blocks = new Map<bigint, Held>();
  const at = (block: bigint) => {
    let found = blocks.get(block);
    if (!found) {
      found = nothingHeld();
      blocks.set(block, found);
    }
    return found;
  };
  for (const m of range.matched) at(m.event.blockNumber).matched.push(m);
  for (const leg of range.feeLegs) at(leg.event.blockNumber).feeLegs.push(leg);
  for (const log of range.logs) at(log.blockNumber).logs.push(log);
  const turns: Turn[] = [];
  let open = nothingHeld();
  let size = 0;
  const ordered = [...blocks].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [block, held] of ordered) {
    open.matched.push(...held.matched);
    open.feeLegs.push(...held.feeLegs);
    open.logs.push(...held.logs);
    size += held.matched.length + held.feeLegs.length + held.logs.length;
    if (size >= turnRows) {
      turns.push({ ...open, lastBlock: block });
      open = nothingHeld();
      size = 0;
    }
  }
  if (size > 0 || turns.length === 0) turns.push({ ...open, lastBlock: ordered.at(-1)?.[0] ?? 0n });
  return turns;
}

/**
 * A turn's payments with who paid. A recurring execution's sender is our relayer: the payer is
 * the subscriber, whose signed permit it ran (their own wallet too); a watcher's payer likewise
 * (a commerce capture's buyer, not the operator that sent it). Otherwise the chain says who paid.
 */
async function withPayers(
  deps: RangeDeps & { readonly signal: AbortSignal; readonly early: EarlyPayers },
  recurring: ReadonlyMap<string, string>,
  turn: Turn | undefined,
): Promise<{ readonly matched: MatchedPayment[]; readonly feeLegs: MatchedFeeLeg[] }> {
  if (!turn) return { matched: [], feeLegs: [] };
  const matched = await askInGroups(
    deps.signal,
    turn.matched,
    async (m): Promise<MatchedPayment> => {
      const known = m.payer ?? recurring.get(m.request.id);
      if (known) {
        const payers = { payerAddress: known, payerEoaAddress: known };
        return { ...m, event: { ...m.event, ...payers } };
      }
      const { bridgedFrom, ...payers } = await askedPayers(deps, m.event);
      // A bridge's fill paid: cross-chain, from the fill's origin chain (its deposit's
      // transaction is the payer's bridge intent's, found when it is recorded).
      const bridge = bridgedFrom && {
        sourceNetwork:
          deps.chains.networkByChainId(bridgedFrom.originChainId)?.id ??
          String(bridgedFrom.originChainId),
        sourceTxHash: null,
      };
      return { ...m, event: { ...m.event, ...payers, ...(bridge && { bridge }) } };
    },
  );
  const feeLegs = await askInGroups(deps.signal, turn.feeLegs, async (m) => ({
    ...m,
    event: { ...m.event, ...payersOnly(await askedPayers(deps, m.event)) },
  }));
  return { matched, feeLegs };
}

/** The watchers' part of a range, in the transaction that records it. */
async function recordWatched(
  watchers: readonly LogWatcher[],
  tx: Database,
  logs: readonly ContractLog[],
  now: Date,
): Promise<number> {
  let recorded = 0;
  for (const watcher of watchers) {
    const mine = new Set(watcher.addresses.map((a) => a.toLowerCase()));
    const own = logs.filter((log) => mine.has(log.address.toLowerCase()));
    if (own.length > 0) recorded += await watcher.recorded(tx, own, now);
  }
  return recorded;
}

/** Who paid, as the node answers it, by payment (`txHash:logIndex`): asked ahead of need. */
type EarlyPayers = ReadonlyMap<string, ReturnType<BlockSource['payers']>>;

const paymentKey = (event: DetectedPayment) => `${event.txHash}:${event.logIndex}`;

/**
 * The payers of a range's matched payments and fee legs, asked now, when they are few enough to
 * ask at once (`PAYER_LOOKUPS`; a backlog asks them turn by turn).
 */
function earlyPayers(
  deps: RangeDeps,
  matched: readonly { readonly event: DetectedPayment }[],
): EarlyPayers {
  const early = new Map<string, ReturnType<BlockSource['payers']>>();
  for (const { event } of matched) {
    const asked = deps.source.payers(event);
    // Awaited where it is used; one never used (a watcher's payer) must not go unhandled.
    asked.catch(() => {});
    early.set(paymentKey(event), asked);
  }
  return early;
}

/** Who paid `event`: the answer asked early, else the node now. */
function askedPayers(
  deps: RangeDeps & { readonly early: EarlyPayers },
  event: DetectedPayment,
): ReturnType<BlockSource['payers']> {
  return deps.early.get(paymentKey(event)) ?? deps.source.payers(event);
}

/** `work` over every item, `PAYER_LOOKUPS` at a time, answers in the items' order. */
async function askInGroups<T, R>(
  signal: AbortSignal,
  items: readonly T[],
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += PAYER_LOOKUPS) {
    signal.throwIfAborted();
    results.push(...(await Promise.all(items.slice(i, i + PAYER_LOOKUPS).map(work))));
  }
  return results;
}

/** Who paid, without what else the source found. */
function payersOnly({ payerAddress, payerEoaAddress }: Payers): Payers {
  return { payerAddress, payerEoaAddress };
}
