import type { Hex } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { createTestApp, type TestApp } from './app.ts';
import { type StandIn, standIn } from './chain.ts';
import { createTenant, type Tenant } from './fixtures.ts';

/**
 * Request route test helpers: the real app on a local EVM with the real Request contracts
 * standing in for base, two tenants, and the calls and checks the `src/requests/*.test.ts`
 * files share. Each test runs between an EVM snapshot and its revert.
 *
 * `local`, `t`, `tenantA` and `tenantB` are live bindings: `setupRequestsApp()` assigns them in
 * the importing file's `beforeAll`, and every test file gets its own copy of this module.
 */

export let local: StandIn;
export let t: TestApp;
export let tenantA: Tenant;
export let tenantB: Tenant;
let snapshot: Hex;

/** Registers the file's stand-in chain, app and tenants, and a snapshot around every test. */
export function setupRequestsApp(): void {
  beforeAll(async () => {
    local = await standIn('base');
    t = await createTestApp({ env: local.env, transports: local.transports });
    tenantA = await createTenant(t.db, 'Shop A');
    tenantB = await createTenant(t.db, 'Shop B');
  });
  afterAll(async () => {
    await t.close();
    await local.chain.close();
  });
  beforeEach(async () => {
    snapshot = await local.chain.snapshot();
  });
  afterEach(async () => {
    await local.chain.revert(snapshot);
  });
}

export function wallet(index: number): PrivateKeyAccount {
  const found = local.chain.wallets[index];
  if (!found) throw new Error(`no wallet ${index}`);
  return privateKeyToAccount(found.privateKey);
}

export type Headers = Record<string, string>;
export const apiKey = (tenant: Tenant): Headers => ({ 'x-api-key': tenant.apiKey });
export const backendClient = (tenant: Tenant): Headers => ({
  'x-client-id': tenant.backendClientId,
});

export function createRequest(body: object, headers: Headers = apiKey(tenantA)) {
  return t.app.inject({ method: 'POST', url: '/v2/request', headers, payload: body });
}

/** Creates a USDC-base request (unless `body` says otherwise) and returns its ids. */
export async function created(
  body: Record<string, unknown> = {},
  headers: Headers = apiKey(tenantA),
): Promise<{ requestId: string; paymentReference: string }> {
  const res = await createRequest(
    {
      amount: '10',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: wallet(1).address,
      ...body,
    },
    headers,
  );
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export function getRequest(requestId: string, headers: Headers = apiKey(tenantA)) {
  return t.app.inject({ method: 'GET', url: `/v2/request/${requestId}`, headers });
}

export interface FieldError {
  field: string;
  message: string;
}

/** Asserts a 400 `Validation failed` and returns its field errors. */
export function validationErrors(res: {
  statusCode: number;
  body: string;
  json: () => { message?: string; errors?: FieldError[] };
}): FieldError[] {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json().message).toBe('Validation failed');
  return res.json().errors ?? [];
}
