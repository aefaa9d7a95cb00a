import { type Address, getAddress } from 'viem';
import { parseDateTime } from '../../base/dates.ts';
import { ValidationError } from '../../base/errors.ts';
import { occurrenceDate } from '../../base/recurrence.ts';
import { walletOf } from '../../requests/create.ts';
import type { PayoutInput } from '../schemas.ts';

/**
 * The rules of a payout's `recurrence` beyond its schema: when it may start, how many payments
 * the contract can count, who pays, and the permit's dates that follow.
 */

/**
 * How far before now `startDate` may lie and still count as "not in the past": a client's
 * "start now" reaches us a moment later, and its clock may be a little behind ours.
 */
const START_DATE_GRACE_MS = 5 * 60_000;

/** How long after its last date a permit stays valid (catching up after a pause): 365 days. */
export const DEADLINE_GRACE_SECONDS = 365 * 86_400;
/** The contract's `totalPayments` is a uint8. */
const MAX_TOTAL_PAYMENTS = 255;
const MAX_UINT32 = 2 ** 32 - 1;

export type PayoutRecurrence = NonNullable<PayoutInput['recurrence']>;

interface CheckedRecurrence {
  readonly payer: Address;
  readonly frequency: PayoutRecurrence['frequency'];
  readonly startDate: Date;
  readonly firstPayment: number;
  readonly totalPayments: number;
  readonly deadline: bigint;
}

/** The rules of `recurrence` beyond its schema; every problem in one 400. */
export function checkRecurrence(
  recurrence: PayoutRecurrence,
  chainId: number,
  payee: string,
  payerWallet: string | undefined,
  now: Date,
): CheckedRecurrence {
  const errors: { field: string; message: string }[] = [];
  const parsed = parseDateTime(recurrence.startDate);
  // Whole seconds: the permit's firstPayment is in seconds, and the calendar counts from it.
  const startDate = parsed && new Date(Math.floor(parsed.getTime() / 1000) * 1000);
  if (!startDate) {
    errors.push({
      field: 'recurrence.startDate',
      message: 'must be an ISO 8601 date-time with a time zone',
    });
  } else if (parsed.getTime() < now.getTime() - START_DATE_GRACE_MS) {
    errors.push({ field: 'recurrence.startDate', message: 'must not be in the past' });
  } else if (startDate.getTime() / 1000 > MAX_UINT32) {
    errors.push({ field: 'recurrence.startDate', message: 'must be before 2106-02-07' });
  }
  const totalPayments = recurrence.totalPayments;
  if (!Number.isInteger(totalPayments) || totalPayments < 2 || totalPayments > MAX_TOTAL_PAYMENTS) {
    errors.push({
      field: 'recurrence.totalPayments',
      message: `must be a whole number from 2 to ${MAX_TOTAL_PAYMENTS}`,
    });
  }
  let payer: string | null = null;
  try {
    payer = walletOf(recurrence.payer, chainId, 'recurrence.payer');
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    errors.push(...(error.errors ?? []));
  }
  if (payer !== null && payer.toLowerCase() === payee.toLowerCase()) {
    errors.push({ field: 'recurrence.payer', message: 'must not be the payee' });
  }
  if (payer !== null && payerWallet !== undefined) {
    if (payerWallet.toLowerCase() !== payer.toLowerCase()) {
      errors.push({
        field: 'recurrence.payer',
        message: 'names another wallet than the payer wallet of the body; send one of them',
      });
    }
  }
  if (errors.length > 0 || !startDate || payer === null) throw new ValidationError(errors);
  const last = occurrenceDate(startDate, recurrence.frequency, totalPayments - 1);
  return {
    payer: getAddress(payer),
    frequency: recurrence.frequency,
    startDate,
    firstPayment: startDate.getTime() / 1000,
    totalPayments,
    deadline: BigInt(last.getTime() / 1000 + DEADLINE_GRACE_SECONDS),
  };
}
