import { eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Currency } from '../chains/currencies.ts';
import { isNative } from '../chains/currencies.ts';
import type { NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { inChunks } from '../db/chunks.ts';
import type { Database } from '../db/client.ts';
import { insertRecordset } from '../db/recordset.ts';
import {
  chainBlocks,
  chainCheckpoints,
  payments,
  recurringExecutions,
  recurringPayouts,
} from '../db/schema.ts';
import { depositKeys } from '../offramp/transfers.ts';
import { searchColumnsOf } from '../payments/records.ts';
import type { RequestRow } from '../requests/requests.ts';
import { requestsByReferenceTopics } from '../requests/settle.ts';
import { depositTxOf } from './deposit-tx.ts';
import { type MatchedFeeLeg, recordFeeLegs, sameAddress } from './fee-legs.ts';
import type { DetectedPayment, PaymentSink, RecordedPayment } from './types.ts';

/** Payment rows a statement (one JSON parameter: a few MB at this many). */
const INSERT_ROWS = 5_000;

/** Blocks whose hashes are kept per network, to find where a reorganisation forked. */
const REMEMBERED_BLOCKS = 512;

export interface MatchedPayment {
  readonly event: DetectedPayment;
  readonly request: RequestRow;
  /** What the payment counts for, in the request's invoice currency's base units. */
  readonly requestAmount: bigint;
  readonly requestFeeAmount: bigint;
  /** Who paid, when a watcher knows better than the transaction (watched.ts). */
  readonly payer?: string;
}

/** The proxies' fiat amounts carry 8 decimals; requests keep the currency's own (contracts.md §3.3). */
const PADDED_FIAT_DECIMALS = 8;

/** Requests of a network whose reference topics appear among the events. */
export async function matchRequests(
  db: Database,
  chains: ChainRegistry,
  network: NetworkId,
  events: readonly DetectedPayment[],
): Promise<MatchedPayment[]> {
  const topics = [...new Set(events.map((e) => e.referenceTopic.toLowerCase()))];
  const rows = await inChunks(topics, (chunk) => requestsByReferenceTopics(db, network, chunk));
  const byTopic = new Map(rows.map((row) => [row.referenceTopic, row]));
  // A crypto-to-fiat request is paid to its payee or to one of its own transfers' deposit
  // addresses (src/offramp/): an address is a deposit for its request only.
  const deposits = new Set(
    await inChunks(
      rows.filter((row) => row.cryptoToFiat).map((row) => row.id),
      async (chunk) => [...(await depositKeys(db, chunk))],
    ),
  );
  const matched: MatchedPayment[] = [];
  for (const event of events) {
    const request = byTopic.get(event.referenceTopic.toLowerCase());
    const currency = request ? chains.currency(request.paymentCurrency) : undefined;
    const invoice = request ? chains.currency(request.invoiceCurrency) : undefined;
    if (
      request &&
      currency &&
      invoice &&
      paysRequest(event, request, currency, invoice, deposits.has(depositKey(request, event)))
    )
      matched.push({ event, request, ...inRequestUnits(event, invoice) });
  }
  return matched;
}

/**
 * The payers of the requests that are recurring payouts' executions, by request row id: the
 * schedule's subscriber, whose tokens the proxy pulled. Their transactions' sender is only the
 * relayer, and `payerAddress` is the resolved payer (api-facts §1.6).
 */
export async function recurringPayers(
  db: Database,
  requestRowIds: readonly string[],
): Promise<Map<string, string>> {
  const rows = await inChunks([...new Set(requestRowIds)], (chunk) =>
    db
      .select({ requestRowId: recurringExecutions.requestRowId, payer: recurringPayouts.payer })
      .from(recurringExecutions)
      .innerJoin(recurringPayouts, eq(recurringPayouts.id, recurringExecutions.recurringPayoutId))
      .where(inArray(recurringExecutions.requestRowId, chunk)),
  );
  return new Map(rows.map((row) => [row.requestRowId, row.payer]));
}

/**
 * A plain payment counts what it paid; a conversion payment what it converted, unpadded (a
 * watcher may say otherwise of the requests its contracts settle: watched.ts).
 */
function inRequestUnits(event: DetectedPayment, invoice: Currency) {
  if (!event.conversion) return { requestAmount: event.amount, requestFeeAmount: event.feeAmount };
  const scale = 10n ** BigInt(PADDED_FIAT_DECIMALS - invoice.decimals);
  return {
    requestAmount: event.conversion.amount / scale,
    requestFeeAmount: event.conversion.feeAmount / scale,
  };
}

/**
 * The reference alone is not enough: the right token must reach the right payee, and a
 * conversion payment pays only a request written in the currency it converted from (and a
 * plain payment only one written in what was paid).
 */
function paysRequest(
  event: DetectedPayment,
  request: RequestRow,
  currency: Currency,
  invoice: Currency,
  toItsDeposit: boolean,
): boolean {
  const converted = event.conversion?.currency ?? null;
  const wanted = invoice.id === currency.id ? null : invoice.hash.toLowerCase();
  if (converted !== wanted) return false;
  const token = isNative(currency)
    ? event.tokenAddress === null
    : event.tokenAddress !== null && sameAddress(event.tokenAddress, currency.address);
  return token && (toItsDeposit || sameAddress(event.payee, request.payee));
}

const depositKey = (request: RequestRow, event: DetectedPayment) =>
  `${request.id} ${event.payee.toLowerCase()}`;

export interface Checkpoint {
  readonly network: NetworkId;
  /** Every block up to here is now recorded. */
  readonly lastBlock: bigint;
  /** Hashes to remember: the checkpoint block's and those of blocks holding payments. */
  readonly blocks: readonly { readonly number: bigint; readonly hash: string }[];
}

/**
 * Records matched payments and moves the checkpoint in one transaction, in which the sink
 * applies what follows from each new payment. A payment already recorded (same network, tx,
 * log index) changes nothing, so a range scanned twice after a crash is harmless. Returns the
 * number of new payments. A range with nothing to record (most blocks) only moves the
 * checkpoint: one statement, no transaction around it.
 */
export async function recordPayments(
  db: Database,
  deps: {
    readonly sink: PaymentSink;
    readonly now: Date;
    /** What else the range holds (watched contracts' logs), recorded in the same transaction. */
    readonly also?: (tx: Database) => Promise<number>;
  },
  matched: readonly MatchedPayment[],
  checkpoint: Checkpoint,
  feeLegs: readonly MatchedFeeLeg[] = [],
): Promise<number> {
  let recorded = 0;
  try {
    if (matched.length === 0 && feeLegs.length === 0 && deps.also === undefined) {
      await saveCheckpoint(db, checkpoint);
    } else {
      await db.transaction(async (tx) => {
        // Fee legs first: the payee's payment events then say which of its fees are paid.
        recorded = await recordFeeLegs(tx, feeLegs);
        recorded += await recordIn(tx, deps, matched, checkpoint);
        if (deps.also) recorded += await deps.also(tx);
      });
    }
  } catch (error) {
    deps.sink.ended?.(false);
    throw error;
  }
  deps.sink.ended?.(true);
  return recorded;
}

/** The payments, with the checkpoint moved by the statement that writes them (if any do). */
async function recordIn(
  tx: Database,
  deps: { readonly sink: PaymentSink; readonly now: Date },
  matched: readonly MatchedPayment[],
  checkpoint: Checkpoint,
): Promise<number> {
  if (matched.length === 0) await saveCheckpoint(tx, checkpoint);
  return insertPayments(tx, deps, matched, {
    unlessSettled: true,
    alongside: checkpointMoved(checkpoint),
  });
}

/**
 * Records matched payments (one already recorded, same network, tx and log index, changes
 * nothing) and hands each new one to the sink, in the caller's transaction, in the order
 * given. Returns how many were new. The rows go `INSERT_ROWS` a statement, as one JSON
 * parameter (db/recordset.ts): a backlog's thousands are a few statements, not one each.
 * Detection calls it with what it saw on chain, `unlessSettled`: a payment the aggregator's
 * word settled already (the same transaction paying the same request) is left out by the
 * statement that writes the others, so that the chain's sight of it counts it once. The bridge
 * tracker calls it with a payment it settles on the aggregator's word.
 */
export async function insertPayments(
  tx: Database,
  deps: { readonly sink: PaymentSink; readonly now: Date },
  matched: readonly MatchedPayment[],
  options: {
    readonly unlessSettled?: boolean;
    /** Other writes the first statement makes (db/recordset.ts). */
    readonly alongside?: SQL;
  } = {},
): Promise<number> {
  const inserted = new Map<string, string>();
  for (let i = 0; i < matched.length; i += INSERT_ROWS) {
    const chunk = matched.slice(i, i + INSERT_ROWS);
    const rows = await insertRecordset(
      tx,
      payments,
      await Promise.all(chunk.map((m) => paymentRow(tx, m))),
      {
        skipConflictsOn: [payments.network, payments.txHash, payments.logIndex],
        ...(options.unlessSettled && { where: notSettledAlready }),
        ...(i === 0 && options.alongside && { alongside: options.alongside }),
        returning: { id: payments.id, txHash: payments.txHash, logIndex: payments.logIndex },
      },
    );
    for (const row of rows) inserted.set(`${row.txHash} ${row.logIndex}`, row.id);
  }
  const recorded: RecordedPayment[] = [];
  for (const { event, request, requestAmount } of matched) {
    const id = inserted.get(`${event.txHash} ${event.logIndex}`);
    if (id === undefined) continue;
    // Twice in one call (a payment matched twice) is recorded once.
    inserted.delete(`${event.txHash} ${event.logIndex}`);
    recorded.push({ id, requestRowId: request.id, event, requestAmount });
  }
  if (recorded.length > 0) await deps.sink.recorded(tx, recorded, deps.now);
  return recorded.length;
}

/** A payment's row, as `insertPayments` writes it. */
async function paymentRow(tx: Database, m: MatchedPayment): Promise<typeof payments.$inferInsert> {
  const { event, request, requestAmount, requestFeeAmount } = m;
  return {
    accountId: request.accountId,
    requestRowId: request.id,
    network: event.network,
    txHash: event.txHash,
    logIndex: event.logIndex,
    blockNumber: event.blockNumber,
    blockHash: event.blockHash,
    amount: event.amount,
    feeAmount: event.feeAmount,
    requestAmount,
    requestFeeAmount,
    amountInUsd: event.conversion?.amountInUsd ?? null,
    feeAddress: event.feeAddress,
    tokenAddress: event.tokenAddress,
    payee: event.payee,
    payerAddress: event.payerAddress,
    payerEoaAddress: event.payerEoaAddress,
    paymentReference: request.paymentReference,
    timestamp: event.timestamp,
    detectionSource: event.settledBy?.detectionSource ?? null,
    note: event.settledBy?.note ?? null,
    ...(event.bridge && {
      sourceNetwork: event.bridge.sourceNetwork,
      sourceTxHash: event.bridge.sourceTxHash ?? (await depositTxOf(tx, request, event)),
    }),
    ...searchColumnsOf(request),
  };
}

/**
 * A payment row (`t`) no payment settled on the aggregator's word counts already: none of the
 * same transaction paying the same request.
 */
const notSettledAlready = sql`not exists (
  select 1 from ${payments} settled
  where settled.network = t.network and settled.tx_hash = t.tx_hash
    and settled.request_row_id = t.request_row_id and settled.detection_source is not null)`;

/** Moves the checkpoint, remembers the blocks' hashes and forgets the oldest: one statement. */
async function saveCheckpoint(tx: Database, checkpoint: Checkpoint): Promise<void> {
  await tx.execute(sql`with ${checkpointMoved(checkpoint)} select 1`);
}

/**
 * What moving the checkpoint writes, as a statement's `with` list (its parts see one snapshot:
 * the delete never reaches a block the insert adds).
 */
function checkpointMoved(checkpoint: Checkpoint): SQL {
  const { network, lastBlock, blocks } = checkpoint;
  const oldest = lastBlock - BigInt(REMEMBERED_BLOCKS * 8);
  const remembered =
    blocks.length === 0
      ? sql``
      : sql`, remembered as (
          insert into ${chainBlocks} (network, number, hash)
          values ${sql.join(
            blocks.map((b) => sql`(${network}, ${String(b.number)}::bigint, ${b.hash})`),
            sql`, `,
          )}
          on conflict (network, number) do update set hash = excluded.hash)`;
  return sql`moved as (
      insert into ${chainCheckpoints} (network, last_block)
      values (${network}, ${String(lastBlock)}::bigint)
      on conflict (network) do update set last_block = excluded.last_block, updated_at = now())
    ${remembered},
    forgotten as (
      delete from ${chainBlocks} where network = ${network} and number < ${String(oldest)}::bigint)`;
}
