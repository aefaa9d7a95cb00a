import type { Hex } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect } from 'vitest';
import { createTestApp, type TestApp } from './app.ts';
import { createTenant, type Tenant } from './fixtures.ts';

/**
 * What the tests of the /v2/payee-destination routes share (src/destinations/routes-*.test.ts):
 * an app with two accounts, sixteen fixed wallets, and the routes' calls. A wallet proves it
 * wants to be paid somewhere by signing the EIP-712 typed data of GET /signing-data.
 * Signatures are checked offline, so no chain runs here.
 */

export const BASE = 8453;
export const TRON = 728126428;
export const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const DAI_BASE = '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb';
export const USDT_TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
export const NONCE_ERROR = 'Nonce is unknown, expired or already used; request new signing data';
export const ID_PATTERN = /^(0x[0-9a-fA-F]{40})@eip155:8453#([0-9A-F]{8}):(0x[0-9a-fA-F]{40})$/;

/** Fixed test keys (0x0101…, 0x0202…); wallet 15 plays the intruder who signs for others. */
const key = (n: number): Hex => `0x${n.toString(16).padStart(2, '0').repeat(32)}`;
const wallets = Array.from({ length: 16 }, (_, i) => privateKeyToAccount(key(i + 1)));
export function wallet(n: number): PrivateKeyAccount {
  const found = wallets[n];
  if (!found) throw new Error(`no wallet ${n}`);
  return found;
}

export let t: TestApp;
export let tenantA: Tenant;
export let tenantB: Tenant;

/** Registers the app's start and close around the calling test file. */
export function setupPayeeDestinations(): void {
  beforeAll(async () => {
    t = await createTestApp();
    tenantA = await createTenant(t.db, 'Shop A');
    tenantB = await createTenant(t.db, 'Shop B');
  });
  afterAll(() => t.close());
}

export type Credentials = Record<string, string>;
export const apiKeyOf = (tenant: Tenant): Credentials => ({ 'x-api-key': tenant.apiKey });
export const clientIdOf = (tenant: Tenant): Credentials => ({
  'x-client-id': tenant.backendClientId,
});

export interface SigningQuery {
  walletAddress: string;
  action: 'add' | 'deactivate';
  tokenAddress?: string;
  chainId?: number;
}

export function signingData(query: Record<string, string | number>, headers = apiKeyOf(tenantA)) {
  const search = new URLSearchParams(
    Object.entries(query).map(([name, value]): [string, string] => [name, String(value)]),
  );
  return t.app.inject({
    method: 'GET',
    url: `/v2/payee-destination/signing-data?${search}`,
    headers,
  });
}

/** Fetches signing data; the typed data is as the route returns it (numbers, not bigints). */
export async function fetchSigningData(
  query: SigningQuery,
  headers = apiKeyOf(tenantA),
): Promise<{ typedData: TypedDataJson; nonce: string }> {
  const res = await signingData(
    { tokenAddress: USDC_BASE, chainId: BASE, ...query } as Record<string, string | number>,
    headers,
  );
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export interface TypedDataJson {
  domain: { name: string; version: string; chainId: number };
  types: Record<string, { name: string; type: string }[]>;
  primaryType: 'PayeeDestination';
  message: Record<string, unknown> & { chainId: number; expiresAt: number };
}

/** Signs the typed data as a wallet would, uint256 fields as bigints. */
export function sign(signer: PrivateKeyAccount, typedData: TypedDataJson): Promise<Hex> {
  return signer.signTypedData({
    ...typedData,
    message: {
      ...typedData.message,
      chainId: BigInt(typedData.message.chainId),
      expiresAt: BigInt(typedData.message.expiresAt),
    },
  });
}

/** Fetches signing data and signs it with `signer` (who need not own the wallet). */
export async function signed(
  signer: PrivateKeyAccount,
  query: SigningQuery,
  headers = apiKeyOf(tenantA),
): Promise<{ signature: Hex; nonce: string }> {
  const { typedData, nonce } = await fetchSigningData(query, headers);
  return { signature: await sign(signer, typedData), nonce };
}

export function post(body: object, headers = apiKeyOf(tenantA)) {
  return t.app.inject({ method: 'POST', url: '/v2/payee-destination', headers, payload: body });
}

export function getOne(destinationId: string, headers = apiKeyOf(tenantA)) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/payee-destination/${encodeURIComponent(destinationId)}`,
    headers,
  });
}

export function getActive(walletAddress: string, headers = apiKeyOf(tenantA)) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/payee-destination?walletAddress=${encodeURIComponent(walletAddress)}`,
    headers,
  });
}

export function remove(destinationId: string, body: object, headers = apiKeyOf(tenantA)) {
  return t.app.inject({
    method: 'DELETE',
    url: `/v2/payee-destination/${encodeURIComponent(destinationId)}`,
    headers,
    payload: body,
  });
}

/** Adds the wallet's destination through the signed flow and returns the 201 body. */
export async function add(
  owner: PrivateKeyAccount,
  tokenAddress = USDC_BASE,
  headers = apiKeyOf(tenantA),
): Promise<Record<string, unknown> & { destinationId: string }> {
  const body = await signed(
    owner,
    { walletAddress: owner.address, action: 'add', tokenAddress },
    headers,
  );
  const res = await post(body, headers);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
