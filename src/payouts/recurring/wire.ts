import type { EvmTransaction } from '../../payments/transactions.ts';
import { schedulePermitBody } from './permit.ts';
import type { RecurringPaymentPermitBody } from './schemas.ts';
import { permitOf, type RecurringPayoutRow } from './store.ts';

/** How a recurring payout's answers write its page, its permit and its calls. */

/** The hosted page where the payer approves and signs: `PAY_URL/?recurring=<payToken>`. */
export function payUrlOf(payUrl: string, payToken: string): string {
  return `${payUrl}/?recurring=${payToken}`;
}

/** The permit as the create answer carries it (`schedulePermitBody`), typed for its schema. */
export function permitBody(row: RecurringPayoutRow): RecurringPaymentPermitBody {
  const body = schedulePermitBody(permitOf(row));
  return {
    domain: body.domain,
    types: { SchedulePermit: [...body.types.SchedulePermit] },
    // schedulePermitBody writes each value in the JSON type this schema gives it.
    values: body.values as RecurringPaymentPermitBody['values'],
  };
}

/** `{data, to, value: {type: 'BigNumber', hex}}`, as every payout answers its calls. */
export function referenceTransaction(tx: EvmTransaction) {
  return { data: tx.data, to: tx.to, value: { type: 'BigNumber' as const, hex: tx.value } };
}
