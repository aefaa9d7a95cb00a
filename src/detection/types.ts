import type { NetworkId } from '../chains/networks.ts';
import type { Database } from '../db/client.ts';
import type { RequestRow } from '../requests/requests.ts';
import type { HeadListener } from './heads.ts';
import type { Payers } from './payer-accounts.ts';

/**
 * A payment event found on a chain, before it is matched to a request: what every detection
 * source (EVM logs, TronGrid events) hands to `recordPayments`.
 */
export interface DetectedPayment {
  readonly network: NetworkId;
  readonly txHash: string;
  /** The event's position in its block (EVM log index; Tron event index). */
  readonly logIndex: number;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly timestamp: Date;
  /** keccak256 of the 8 reference bytes (topic 1), 0x-prefixed lower-case hex. */
  readonly referenceTopic: string;
  /** The token paid (checksummed EVM, base58 on Tron); null for native currency. */
  readonly tokenAddress: string | null;
  /** Who was paid (checksummed EVM, base58 on Tron). */
  readonly payee: string;
  /** Base units, fee excluded. */
  readonly amount: bigint;
  readonly feeAmount: bigint;
  readonly feeAddress: string | null;
  /**
   * The resolved payer: the account the tokens left (the transaction's sender, or the contract
   * wallet it drove), or a recurring schedule's subscriber.
   */
  readonly payerAddress: string | null;
  /**
   * The payer's own wallet, the one that signed: the transaction's sender; for a contract
   * wallet, the EOA whose tokens it took in the same transaction, else the EOA that sent its
   * call (null when a bundler sent it); or a recurring schedule's subscriber, whose signed
   * permit a relayer executed. Null too where the chain does not name a sender.
   */
  readonly payerEoaAddress: string | null;
  /**
   * A conversion payment (contracts.md §3): the conversion proxy's
   * `TransferWithConversionAndReference` of the same transaction and reference, in the request
   * currency (`currency`, its Request hash, is the path's first step), 8-decimal fiat units.
   * Absent on plain payments.
   */
  readonly conversion?: {
    readonly currency: string;
    readonly amount: bigint;
    readonly feeAmount: bigint;
    readonly maxRateTimespan: bigint;
    /** `amount` in USD (8 decimals) at the payment's block; null when no feed says. */
    readonly amountInUsd: bigint | null;
  };
  /**
   * Set on a payment settled on a third party's word, not seen on chain by us: the routing
   * aggregator reporting a bridge's delivery (api-facts §18). Its block fields are empty.
   */
  readonly settledBy?: { readonly detectionSource: string; readonly note: string };
  /**
   * A cross-chain payment: a bridge delivered on `network` (`txHash` is the delivering fill)
   * what the payer deposited on `sourceNetwork`, in `sourceTxHash` when known. Absent on
   * same-chain payments.
   */
  readonly bridge?: { readonly sourceNetwork: string; readonly sourceTxHash: string | null };
}

/** A source of payment events for one network, scanned block range by block range. */
export interface BlockSource {
  /** The newest block number the chain reports. */
  head(): Promise<bigint>;
  /**
   * Follows the chain's new heads (heads.ts): returns what stops it, or null when the node
   * cannot be followed (an HTTP RPC, Tron) and is only polled. Sources that never can leave
   * it out.
   */
  follow?(listener: HeadListener): (() => void) | null;
  /** The hash the chain now has at a height (to detect reorganisations). */
  blockHash(number: bigint): Promise<string>;
  /** Every payment-proxy event in [from, to], inclusive, with `payerAddress` and `payerEoaAddress`
   * still null. */
  events(from: bigint, to: bigint): Promise<DetectedPayment[]>;
  /**
   * Who paid (`payerAddress`) and the EOA behind them (`payerEoaAddress`), asked only for
   * events that matched a request: the transaction's sender, or the contract wallet it drove
   * (payer-accounts.ts).
   */
  payers(event: DetectedPayment): Promise<Payers>;
  /**
   * The payment events of [from, to] and, from the same read of the node, the logs of other
   * contracts watchers asked for (`watched`). Sources that serve no watcher (Tron) leave it out.
   */
  scan?(
    from: bigint,
    to: bigint,
    watched: readonly string[],
  ): Promise<{ readonly payments: DetectedPayment[]; readonly logs: ContractLog[] }>;
}

/** A log of a watched contract (not a payment proxy), with its block's time. */
export interface ContractLog {
  readonly address: string;
  readonly topics: readonly `0x${string}`[];
  readonly data: `0x${string}`;
  readonly txHash: string;
  readonly logIndex: number;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly timestamp: Date;
}

/**
 * A feature that reads other contracts' logs in the indexer's pass: their logs come from the
 * same read as the payments', are recorded in the transaction that moves the checkpoint, and
 * are taken back in the one that rolls a reorganisation back. Detection knows nothing of what
 * they mean (src/workers/workers.ts wires the commerce payments' one).
 */
export interface LogWatcher {
  /** The contracts whose logs it wants, on the indexer's network. */
  readonly addresses: readonly string[];
  /** Records what the logs say (a log recorded before changes nothing); returns how many are new. */
  recorded(tx: Database, logs: readonly ContractLog[], now: Date): Promise<number>;
  /** Takes back what it recorded above `fork`; returns how many rows it dropped. */
  dropped(tx: Database, fork: bigint, now: Date): Promise<number>;
  /**
   * Judges the range's payments to requests its contracts settle, by the range's logs of its
   * contracts (those of the same transactions), before the payers it names are used (a range of
   * a few payments has them asked of the node meanwhile) and outside the recording transaction.
   * One answer per payment: `undefined` when the request is none of its own (detection counts
   * it as any payment), `null` when it pays nothing (no log vouches for it), else what it counts
   * for and who paid.
   */
  settles?(
    db: Database,
    payments: readonly WatchedPayment[],
    logs: readonly ContractLog[],
  ): Promise<readonly (WatchedSettlement | null | undefined)[]>;
}

/** A payment matched to a request, as a watcher judges it. */
export interface WatchedPayment {
  readonly event: DetectedPayment;
  /** The request's public id. */
  readonly requestId: string;
}

/** What a payment a watcher vouches for counts: its request's units, and who paid. */
export interface WatchedSettlement {
  readonly requestAmount: bigint;
  /** The resolved payer, as both `payerAddress` and `payerEoaAddress`; null to ask the chain. */
  readonly payer: string | null;
}

/** A payment detection recorded: the event, its row, and the request it was matched to. */
export interface RecordedPayment {
  /** The payment row's id. */
  readonly id: string;
  readonly requestRowId: string;
  readonly event: DetectedPayment;
  /** What it counts for, in the request's invoice currency (`event.amount` unless converted). */
  readonly requestAmount: bigint;
}

/** A payment a reorganisation took off the chain, as it was recorded. */
interface DroppedPayment {
  readonly id: string;
  readonly requestRowId: string;
  /** What it counted for, in the request's invoice currency. */
  readonly requestAmount: bigint;
}

/**
 * What follows from payments is owned by the features it concerns (a request's total and
 * status, a link's completion, the webhook events): detection only reports the facts, inside
 * the transaction that records them, so the consequences exist if and only if the payment does.
 */
export interface PaymentSink {
  /**
   * New payments, in the order they were found (a backlog's range may hold thousands): each
   * counted in that order, in statements for them all.
   */
  recorded(tx: Database, payments: readonly RecordedPayment[], now: Date): Promise<void>;
  /**
   * The same sink, having read now what it can of these requests outside the transaction that
   * records their payments (a new block's few: fewer statements between it and its webhooks).
   */
  readAhead?(db: Database, requests: readonly RequestRow[]): Promise<PaymentSink>;
  dropped(tx: Database, payments: readonly DroppedPayment[]): Promise<void>;
  /** The transaction of the last `recorded` calls ended: committed, or rolled back. */
  ended?(committed: boolean): void;
}
