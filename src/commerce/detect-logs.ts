import { getAddress, type Log, parseEventLogs } from 'viem';
import type { CommerceEventType } from '../db/schema.ts';
import type { ContractLog } from '../detection/types.ts';
import { commerceWrapperAbi } from '../payments/commerce/abi.ts';

/**
 * The wrapper's events (contracts.md §5.1) as what they do to a commerce payment. Its indexed
 * `bytes8 paymentReference` is the raw reference, left-aligned in the topic: no hash to match.
 */
export interface CommerceLogEvent {
  readonly type: CommerceEventType;
  /** 16 lower-case hex digits, no 0x: the payment's key. */
  readonly paymentReference: string;
  /** Base units: authorized, captured (before the fee), voided, refunded, reclaimed or charged. */
  readonly amount: bigint;
  /** Named by the authorization, the charge and the legs back to the payer. */
  readonly payer: string | null;
  /** Named by the authorization, the charge and the capture. */
  readonly merchant: string | null;
  /** Named by `PaymentAuthorized` and the charge. */
  readonly token: string | null;
  /** The escrow's hash of the payment; absent from `CommercePaymentAuthorized`. */
  readonly commercePaymentHash: string | null;
  readonly wrapper: string;
  readonly txHash: string;
  readonly logIndex: number;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly timestamp: Date;
}

type Parsed = ReturnType<typeof parseEventLogs<typeof commerceWrapperAbi>>[number];

/**
 * Decodes the wrapper's logs, in chain order. `CommercePaymentAuthorized` repeats the
 * `PaymentAuthorized` of the same transaction and reference, so one authorization is one event:
 * the alias counts only where its twin is absent (a wrapper that emits it alone).
 */
export function decodeCommerceLogs(logs: readonly ContractLog[]): CommerceLogEvent[] {
  const byKey = new Map(logs.map((log) => [`${log.txHash}:${log.logIndex}`, log]));
  const parsed = parseEventLogs({
    abi: commerceWrapperAbi,
    logs: logs.map(asViemLog),
  });
  const sorted = [...parsed].sort((a, b) =>
    a.blockNumber === b.blockNumber
      ? (a.logIndex ?? 0) - (b.logIndex ?? 0)
      : (a.blockNumber ?? 0n) < (b.blockNumber ?? 0n)
        ? -1
        : 1,
  );
  const authorized = new Set(
    sorted
      .filter((log) => log.eventName === 'PaymentAuthorized')
      .map((log) => `${log.transactionHash}:${referenceOf(log.args.paymentReference)}`),
  );
  const events: CommerceLogEvent[] = [];
  for (const log of sorted) {
    const source = byKey.get(`${log.transactionHash}:${log.logIndex}`);
    if (!source) continue;
    const fields = fieldsOf(log);
    if (
      log.eventName === 'CommercePaymentAuthorized' &&
      authorized.has(`${log.transactionHash}:${fields.paymentReference}`)
    )
      continue;
    events.push({
      ...fields,
      wrapper: source.address,
      txHash: source.txHash,
      logIndex: source.logIndex,
      blockNumber: source.blockNumber,
      blockHash: source.blockHash,
      timestamp: source.timestamp,
    });
  }
  return events;
}

/** What one event says, by its kind. */
function fieldsOf(
  log: Parsed,
): Pick<
  CommerceLogEvent,
  'type' | 'paymentReference' | 'amount' | 'payer' | 'merchant' | 'token' | 'commercePaymentHash'
> {
  const none = { payer: null, merchant: null, token: null };
  switch (log.eventName) {
    case 'PaymentAuthorized':
    case 'PaymentCharged': {
      const { args } = log;
      return {
        type: log.eventName === 'PaymentAuthorized' ? 'authorized' : 'charged',
        paymentReference: referenceOf(args.paymentReference),
        amount: args.amount,
        payer: getAddress(args.payer),
        merchant: getAddress(args.merchant),
        token: getAddress(args.token),
        commercePaymentHash: args.commercePaymentHash.toLowerCase(),
      };
    }
    case 'CommercePaymentAuthorized':
      return {
        ...none,
        type: 'authorized',
        paymentReference: referenceOf(log.args.paymentReference),
        amount: log.args.amount,
        payer: getAddress(log.args.payer),
        merchant: getAddress(log.args.merchant),
        commercePaymentHash: null,
      };
    case 'PaymentCaptured':
      return {
        ...none,
        type: 'captured',
        paymentReference: referenceOf(log.args.paymentReference),
        amount: log.args.capturedAmount,
        merchant: getAddress(log.args.merchant),
        commercePaymentHash: log.args.commercePaymentHash.toLowerCase(),
      };
    case 'PaymentVoided':
      return {
        ...none,
        type: 'voided',
        paymentReference: referenceOf(log.args.paymentReference),
        amount: log.args.voidedAmount,
        payer: getAddress(log.args.payer),
        commercePaymentHash: log.args.commercePaymentHash.toLowerCase(),
      };
    case 'PaymentRefunded':
      return {
        ...none,
        type: 'refunded',
        paymentReference: referenceOf(log.args.paymentReference),
        amount: log.args.refundedAmount,
        payer: getAddress(log.args.payer),
        commercePaymentHash: log.args.commercePaymentHash.toLowerCase(),
      };
    case 'PaymentReclaimed':
      return {
        ...none,
        type: 'reclaimed',
        paymentReference: referenceOf(log.args.paymentReference),
        amount: log.args.reclaimedAmount,
        payer: getAddress(log.args.payer),
        commercePaymentHash: log.args.commercePaymentHash.toLowerCase(),
      };
  }
}

/** `0x1234567890abcdef` → `1234567890abcdef`. */
const referenceOf = (bytes8: `0x${string}`) => bytes8.slice(2).toLowerCase();

/** The shape viem's decoder reads (it needs only topics, data and the position fields). */
function asViemLog(log: ContractLog): Log {
  return {
    address: log.address as `0x${string}`,
    topics: log.topics as [`0x${string}`, ...`0x${string}`[]],
    data: log.data,
    blockHash: log.blockHash as `0x${string}`,
    blockNumber: log.blockNumber,
    logIndex: log.logIndex,
    transactionHash: log.txHash as `0x${string}`,
    transactionIndex: 0,
    removed: false,
  };
}
