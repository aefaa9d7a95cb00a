import { asc } from 'drizzle-orm';
import { type Hex, serializeSignature } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount, sign } from 'viem/accounts';
import { afterAll, beforeAll, expect } from 'vitest';
import { tronMessageHash } from '../src/auth/siwe.ts';
import { evmToTron } from '../src/chains/tron-address.ts';
import { clientIds, destinationNonces, payeeDestinations } from '../src/db/schema.ts';
import { createTestApp, type TestApp } from './app.ts';
import { addSignedDestination } from './signed-destination.ts';

/**
 * What the tests of the /v1/payee-destination routes share (src/destinations/v1-routes-*.test.ts):
 * sessions opened the real way (SIWE challenge, signed, verified; or e-mail), the routes' calls,
 * and a snapshot of every row they may write.
 */

export const BASE = 8453;
export const TRON = 728126428;
export const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const DAI_BASE = '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb';
export const USDT_TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
export const DEFAULT_POLICY = {
  mode: 'off',
  screeningProvider: null,
  hideUntilApproved: false,
  hidePayeeAddress: false,
};
export const KYT_POLICY = {
  mode: 'kyt_all_wallets',
  screeningProvider: 'hypernative',
  hideUntilApproved: true,
  hidePayeeAddress: false,
};
export const WALLET_REQUIRED = {
  message: 'A wallet session is required',
  code: 'wallet_session_required',
};

export let t: TestApp;

/** Registers the file's app: each test file that uses these helpers calls it once. */
export function setupDestinationsApp(): void {
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
}

/** A new key per call (0x…01, 0x…02, …), so every test signs in as a wallet of its own. */
let keys = 0;
export function freshKey(): Hex {
  keys += 1;
  return `0x${keys.toString(16).padStart(64, '0')}`;
}

export interface Session {
  readonly headers: Record<string, string>;
  readonly accountId: string;
  readonly address: string;
}

async function signIn(address: string, signMessage: (message: string) => Promise<Hex>) {
  const challenge = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/wallet/challenge',
    payload: { address },
  });
  expect(challenge.statusCode, challenge.body).toBe(201);
  const { challengeId, nonce, message } = challenge.json();
  const verified = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/wallet/verify',
    payload: { challengeId, nonce, message, signature: await signMessage(message) },
  });
  expect(verified.statusCode, verified.body).toBe(200);
  const body = verified.json();
  return {
    headers: { authorization: `Bearer ${body.sessionToken}` },
    accountId: body.accountId,
    address: body.address,
  } satisfies Session;
}

/** An EVM wallet signed in with personal_sign; `account` signs /v2 messages too. */
export async function evmSession(): Promise<Session & { account: PrivateKeyAccount }> {
  const account = privateKeyToAccount(freshKey());
  const session = await signIn(account.address, (message) => account.signMessage({ message }));
  return { ...session, account };
}

/** A Tron wallet signed in with Tron's message signing v2. */
export async function tronSession(): Promise<Session> {
  const privateKey = freshKey();
  const address = evmToTron(privateKeyToAccount(privateKey).address);
  return signIn(address, async (message) =>
    serializeSignature(await sign({ hash: tronMessageHash(message), privateKey })),
  );
}

let emails = 0;
export async function emailSession(): Promise<Session> {
  emails += 1;
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/register',
    payload: { email: `payee${emails}@example.com`, password: 'a long enough password' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json();
  return {
    headers: { authorization: `Bearer ${body.sessionToken}` },
    accountId: body.accountId,
    address: '',
  };
}

export function create(session: Session, payload: object) {
  return t.app.inject({
    method: 'POST',
    url: '/v1/payee-destination',
    headers: session.headers,
    payload,
  });
}

export function change(session: Session, payload: object) {
  return t.app.inject({
    method: 'PUT',
    url: '/v1/payee-destination',
    headers: session.headers,
    payload,
  });
}

export function getOwn(session: Session) {
  return t.app.inject({ method: 'GET', url: '/v1/payee-destination', headers: session.headers });
}

export function payoutLookup(session: Session, walletAddress: string) {
  return t.app.inject({
    method: 'GET',
    url: `/v1/payee-destination/payout-lookup?walletAddress=${encodeURIComponent(walletAddress)}`,
    headers: session.headers,
  });
}

export function lookup(session: Session, destinationId: string) {
  return t.app.inject({
    method: 'GET',
    url: `/v1/payee-destination/lookup?destinationId=${encodeURIComponent(destinationId)}`,
    headers: session.headers,
  });
}

export function deactivate(session: Session, destinationId: string) {
  return t.app.inject({
    method: 'PATCH',
    url: '/v1/payee-destination/deactivate',
    headers: session.headers,
    payload: { destinationId },
  });
}

export async function created(
  session: Session,
  payload: object = { tokenAddress: USDC_BASE, chainId: BASE },
) {
  const res = await create(session, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export interface FieldErrorJson {
  field: string;
  message: string;
}

/** The field errors of a 400 Validation failed answer. */
export function validationErrors(res: { statusCode: number; json<T>(): T }): FieldErrorJson[] {
  expect(res.statusCode).toBe(400);
  const body = res.json<{ message: string; code: string; errors: FieldErrorJson[] }>();
  expect(body).toMatchObject({ message: 'Validation failed', code: 'validation_failed' });
  return body.errors;
}

/**
 * Every row the destination routes may write: destinations, /v2 signing nonces, and client IDs
 * (which follow a changed destination), minus `lastUsedAt`, which the auth hook records.
 */
async function snapshot() {
  const destinations = await t.db
    .select()
    .from(payeeDestinations)
    .orderBy(asc(payeeDestinations.id));
  const nonces = await t.db.select().from(destinationNonces).orderBy(asc(destinationNonces.nonce));
  const clients = await t.db.select().from(clientIds).orderBy(asc(clientIds.id));
  return { destinations, nonces, clientIds: clients.map(({ lastUsedAt: _, ...row }) => row) };
}

/** Sends a request that must be refused and proves it wrote nothing. */
export async function writesNothing<T>(send: () => Promise<T>): Promise<T> {
  const before = await snapshot();
  const res = await send();
  expect(await snapshot()).toEqual(before);
  return res;
}

/** A /v1 client ID of the session's account, bound to `payeeDestinationId`. */
export async function boundClientId(session: Session, payeeDestinationId: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/client-ids',
    headers: session.headers,
    payload: { label: 'Checkout', payeeDestinationId },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; clientId: string; payeeDestinationId: string }>();
}

/** The destination id a client ID is bound to, as `/v1/client-ids/{id}` shows it. */
export async function boundTo(session: Session, id: string): Promise<string | null> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v1/client-ids/${id}`,
    headers: session.headers,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ payeeDestinationId: string | null }>().payeeDestinationId;
}

/** The wallet's own EIP-712 signature, then POST /v2/payee-destination with the API key. */
export function addViaV2(account: PrivateKeyAccount, apiKey: string, tokenAddress: string) {
  return addSignedDestination(t, { 'x-api-key': apiKey }, account, { tokenAddress, chainId: BASE });
}
