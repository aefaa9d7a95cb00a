import { randomBytes } from 'node:crypto';
import { getAddress, type Hex, toHex, zeroAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type Frequency, occurrenceDate, shortestPeriodSeconds } from '../src/base/recurrence.ts';
import type { NetworkId } from '../src/chains/networks.ts';
import type { ChainRegistry } from '../src/chains/registry.ts';
import type { Database } from '../src/db/client.ts';
import {
  activate,
  insertRecurringPayout,
  permitOf,
  type RecurringPayoutRow,
} from '../src/payouts/recurring/store.ts';

/** The permit's deadline: a year after the last date, as the create route sets it. */
const DEADLINE_GRACE_SECONDS = 365 * 86_400;

/**
 * Recurring payouts written straight into the database, as `POST /v2/payouts` with
 * `recurrence` writes them (for tests that need a schedule but no chain to read the
 * allowance from), and the payer's signature over one, made by a viem account.
 */

export interface ScheduleOptions {
  readonly accountId: string;
  readonly payerKey: Hex;
  readonly payee: string;
  readonly clientIdId?: string | null;
  readonly network?: NetworkId;
  readonly currency?: string;
  /** Base units, per payment. */
  readonly amount?: bigint;
  readonly feeAmount?: bigint;
  readonly totalPayments?: number;
  readonly frequency?: Frequency;
  readonly startDate: Date;
}

export async function insertSchedule(
  db: Database,
  chains: ChainRegistry,
  options: ScheduleOptions,
): Promise<RecurringPayoutRow> {
  const networkId = options.network ?? 'base';
  const network = chains.network(networkId);
  const currency = chains.currency(options.currency ?? 'USDC-base');
  if (!network || !currency) throw new Error('unknown network or currency');
  const proxy = chains.contracts(networkId).recurringPaymentProxy;
  if (!proxy) throw new Error(`no recurring proxy on ${networkId}`);
  const payer = privateKeyToAccount(options.payerKey).address;
  const payee = getAddress(options.payee);
  const frequency = options.frequency ?? 'MONTHLY';
  const totalPayments = options.totalPayments ?? 3;
  const amount = options.amount ?? 10_000_000n;
  const last = occurrenceDate(options.startDate, frequency, totalPayments - 1);
  const { schedule } = await insertRecurringPayout(
    db,
    {
      accountId: options.accountId,
      clientIdId: options.clientIdId ?? null,
      network: network.id,
      chainId: network.chainId,
      currency: currency.id,
      proxy: getAddress(proxy),
      payer,
      tokenAddress: getAddress(currency.address),
      payee,
      feeAddress: zeroAddress,
      amount,
      feeAmount: options.feeAmount ?? 0n,
      relayerFee: 0n,
      periodSeconds: shortestPeriodSeconds(frequency),
      firstPayment: options.startDate.getTime() / 1000,
      totalPayments,
      nonce: BigInt(toHex(randomBytes(32))),
      deadline: BigInt(last.getTime() / 1000 + DEADLINE_GRACE_SECONDS),
      strictOrder: true,
      frequency,
      startDate: options.startDate,
    },
    {
      accountId: options.accountId,
      clientIdId: options.clientIdId ?? null,
      network,
      invoiceCurrency: currency,
      paymentCurrency: currency,
      expectedAmount: amount,
      payee,
      payer,
    },
  );
  return schedule;
}

/** The payer's EIP-712 signature over the schedule's permit, as a wallet makes it. */
export function signPermit(row: RecurringPayoutRow, key: Hex): Promise<Hex> {
  return privateKeyToAccount(key).signTypedData(permitOf(row));
}

/** A schedule signed by its payer and `active`, as the activation route leaves it. */
export async function activeSchedule(
  db: Database,
  chains: ChainRegistry,
  options: ScheduleOptions,
  now: Date,
): Promise<RecurringPayoutRow> {
  const row = await insertSchedule(db, chains, options);
  const active = await activate(db, row, await signPermit(row, options.payerKey), now);
  if (!active) throw new Error('activation failed');
  return active;
}
