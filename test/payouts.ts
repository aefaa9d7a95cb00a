import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { securePayments } from '../src/db/schema.ts';
import type { Tenant } from './fixtures.ts';
import { apiKey, type Body, type Headers, rowCounts, shop, t, wallet } from './secure-payments.ts';

/** Hosted payout links over HTTP: requests, refusals that write nothing, and rows to check. */

export const RECIPIENT = wallet(9001);
export const CREATOR = wallet(9002);
export const OTHER = wallet(9003);
export const TRON_CREATOR = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';

export function postPayout(payload: Body, headers: Headers = apiKey(shop)) {
  return t.app.inject({ method: 'POST', url: '/v2/secure-payments/payouts', headers, payload });
}

export function postBatch(payload: Body, headers: Headers = apiKey(shop)) {
  return t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments/batch-payouts',
    headers,
    payload,
  });
}

export const payoutBody = (extra: Body = {}): Body => ({
  recipient: RECIPIENT,
  creatorWalletAddress: CREATOR,
  network: 'base',
  currency: 'USDC-base',
  amount: '12.5',
  ...extra,
});

export async function payout(
  extra: Body = {},
  tenant: Tenant = shop,
): Promise<{ token: string; requestIds: string[] }> {
  const res = await postPayout(payoutBody(extra), apiKey(tenant));
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export async function linkRow(token: string) {
  const [row] = await t.db.select().from(securePayments).where(eq(securePayments.token, token));
  return row;
}

/** Statuses of every link, so a refusal can be shown to have changed none. */
async function statuses(): Promise<Record<string, string>> {
  const rows = await t.db
    .select({ token: securePayments.token, status: securePayments.status })
    .from(securePayments);
  return Object.fromEntries(rows.map((row) => [row.token, row.status]));
}

export async function expectPayoutRefused(payload: Body, body: Body): Promise<void> {
  const before = await rowCounts();
  const res = await postPayout(payload);
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject(body);
  expect(await rowCounts()).toEqual(before);
}

export async function expectBatchRefused(
  payload: Body,
  body: Body,
  headers: Headers = apiKey(shop),
): Promise<void> {
  const before = { counts: await rowCounts(), statuses: await statuses() };
  const res = await postBatch(payload, headers);
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject(body);
  expect({ counts: await rowCounts(), statuses: await statuses() }).toEqual(before);
}
