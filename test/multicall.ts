import { expect } from 'vitest';
import { multicallChildren } from '../src/db/schema.ts';
import { MULTICALL_VALIDATION_MESSAGE } from '../src/payouts/multicall/create.ts';
import { BLOCK_MESSAGES } from '../src/payouts/multicall/reasons.ts';
import type { Tenant } from './fixtures.ts';
import { apiKey, type Body, type Headers, rowCounts, shop, t, wallet } from './secure-payments.ts';

/** Multicall payouts over HTTP on the secure-payments test app (test/secure-payments.ts). */

export const CREATOR = wallet(9102);
export const OTHER_CREATOR = wallet(9103);
export const TRON_CREATOR = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
export const TRON_RECIPIENT = 'TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF';
export const BASE_BATCH = '0x1aF3f22685AcdDc788B3730ed415912d8f654420';

export function post(url: string, payload: Body, headers: Headers = apiKey(shop)) {
  return t.app.inject({ method: 'POST', url, headers, payload });
}

export async function payout(extra: Body = {}, tenant: Tenant = shop) {
  const res = await post(
    '/v2/secure-payments/payouts',
    {
      recipient: wallet(9200 + Math.floor(Math.random() * 500)),
      creatorWalletAddress: CREATOR,
      network: 'base',
      currency: 'USDC-base',
      amount: '10',
      ...extra,
    },
    apiKey(tenant),
  );
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json() as { token: string; requestIds: string[] };
  return { token: body.token, requestId: body.requestIds[0] as string };
}

export function createMulticall(payload: Body, headers: Headers = apiKey(shop)) {
  return post('/v2/secure-payments/multicall-payouts', payload, headers);
}

export async function multicall(childTokens: string[], extra: Body = {}) {
  const res = await createMulticall({ childTokens, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { token: string; expiresAt: string; items: { requestId: string }[] };
}

export async function state() {
  return {
    counts: await rowCounts(),
    children: (await t.db.select().from(multicallChildren)).length,
  };
}

/** The 400 envelope with the failures in the order sent; nothing written. */
export async function expectFailures(payload: Body, failures: Body[], extra: Body = {}) {
  const before = await state();
  const res = await createMulticall(payload);
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({
    statusCode: 400,
    error: 'Bad Request',
    message: MULTICALL_VALIDATION_MESSAGE,
    code: 'multicall_validation_failed',
    failures,
    ...extra,
  });
  expect(res.json().failures).toHaveLength(failures.length);
  expect(await state()).toEqual(before);
  return res.json();
}

export const failed = (token: string, reason: keyof typeof BLOCK_MESSAGES, context: Body = {}) => ({
  securePaymentToken: token,
  reason,
  message: BLOCK_MESSAGES[reason],
  messageKey: `multicall.child.${reason}`,
  recoveryAction:
    reason === 'request_processing'
      ? 'recreate_after_cooldown'
      : reason === 'compliance_failed'
        ? 'support_required'
        : 'remove_child',
  context: expect.objectContaining(context),
});
