import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { recurringPayouts } from '../src/db/schema.ts';
import {
  SCHEDULE_PERMIT_TYPES,
  type SchedulePermitDomain,
  type SchedulePermitValues,
} from '../src/payouts/recurring/permit.ts';
import { apiKey, t, tenantA, wallet } from './requests.ts';

/**
 * HTTP helpers of the recurring payout route tests (files that call `setupRequestsApp()`):
 * a schedule created over `POST /v2/payouts`, its permit signed as a wallet signs it, and the
 * checks of a refusal.
 */

export const DAY = 86_400_000;
const url = (id: string) => `/v2/payouts/recurring/${id}`;
export const call = (
  method: 'GET' | 'POST' | 'PATCH',
  id: string,
  payload?: object,
  headers = apiKey(tenantA),
) => t.app.inject({ method, url: url(id), headers, ...(payload && { payload }) });

/** Creates a recurring payout over HTTP: wallet(2) pays wallet(1) 5 USDC monthly, 3 times. */
export async function created(start = new Date(t.clock.now().getTime() + DAY)) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/payouts',
    headers: apiKey(tenantA),
    payload: {
      payee: wallet(1).address,
      amount: '5',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      recurrence: {
        startDate: start.toISOString(),
        frequency: 'MONTHLY',
        totalPayments: 3,
        payer: wallet(2).address,
      },
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** The answer's permit values as a wallet's typed-data message: decimal strings to integers. */
export function messageOf(values: Record<string, unknown>): SchedulePermitValues {
  return {
    ...(values as unknown as SchedulePermitValues),
    amount: BigInt(values.amount as string),
    feeAmount: BigInt(values.feeAmount as string),
    relayerFee: BigInt(values.relayerFee as string),
    nonce: BigInt(values.nonce as string),
    deadline: BigInt(values.deadline as string),
  };
}

/** Signs the answer's permit as a wallet does. */
export function sign(
  permit: { domain: SchedulePermitDomain; values: Record<string, unknown> },
  signer = wallet(2),
) {
  return signer.signTypedData({
    domain: permit.domain,
    types: SCHEDULE_PERMIT_TYPES,
    primaryType: 'SchedulePermit',
    message: messageOf(permit.values),
  });
}

export function expectRefused(
  res: { statusCode: number; body: string; json: () => Record<string, unknown> },
  message: string,
) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', message });
}

export const statusOf = async (id: string) =>
  (await t.db.select().from(recurringPayouts).where(eq(recurringPayouts.id, id)))[0]?.status;
