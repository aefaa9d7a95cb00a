import { asc } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { evmToTron } from '../src/chains/tron-address.ts';
import { apiKeys, clientIds, payeeDestinations } from '../src/db/schema.ts';
import {
  activateDestination,
  type DestinationRow,
  deactivateDestination,
} from '../src/destinations/destinations.ts';
import { resolveTarget } from '../src/destinations/target.ts';
import { createTestApp, type TestApp } from './app.ts';

/**
 * What the tests of client-ID management share (src/auth/client-id-routes-*.test.ts): two
 * accounts with a session and an API key each, destinations, the routes' calls and answers, and
 * a snapshot of every row they may write.
 */

const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const OTHER_WALLET = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const B_WALLET = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
export const TRON_FEE = evmToTron(WALLET);
export const SHOP = 'https://shop.example';
export const CURRENCY = '/v2/currencies?id=USDC-base';
export const START = new Date('2026-11-22T12:00:00Z');

export interface Caller {
  readonly accountId: string;
  /** `Authorization: Bearer` with the session from registration. */
  readonly session: Record<string, string>;
  /** `x-api-key` with a key made through `/v1/api-keys`. */
  readonly apiKey: Record<string, string>;
}

export let t: TestApp;
export let a: Caller;
let b: Caller;
export let destination: DestinationRow;
export let inactiveDestination: DestinationRow;
export let bDestination: DestinationRow;

async function register(email: string): Promise<Caller> {
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/register',
    payload: { email, password: 'a long enough password' },
  });
  expect(registered.statusCode, registered.body).toBe(201);
  const { accountId, sessionToken } = registered.json();
  const session = { authorization: `Bearer ${sessionToken}` };
  const key = await t.app.inject({
    method: 'POST',
    url: '/v1/api-keys',
    headers: session,
    payload: { label: 'server' },
  });
  expect(key.statusCode, key.body).toBe(201);
  return { accountId, session, apiKey: { 'x-api-key': key.json().apiKey } };
}

async function destinationOf(accountId: string, walletAddress: string) {
  const target = resolveTarget(t.chains, { walletAddress, chainId: 8453, tokenAddress: USDC_BASE });
  return activateDestination(t.db, t.clock, accountId, target);
}

/** Registers the file's app, accounts and destinations: each test file calls it once. */
export function setupClientIdApp(): void {
  beforeAll(async () => {
    t = await createTestApp();
    a = await register('alice@example.com');
    b = await register('bob@example.com');
    destination = await destinationOf(a.accountId, WALLET);
    inactiveDestination = await deactivateDestination(
      t.db,
      t.clock,
      await destinationOf(a.accountId, OTHER_WALLET),
    );
    bDestination = await destinationOf(b.accountId, B_WALLET);
  });
  afterAll(() => t.close());
}

export function send(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  payload?: object,
) {
  return t.app.inject({ method, url, headers, ...(payload !== undefined && { payload }) });
}

export async function created(prefix: string, caller: Record<string, string>, payload: object) {
  const res = await send('POST', prefix, caller, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; clientId: string } & Record<string, unknown>;
}

/**
 * Every row these routes write, minus `lastUsedAt`: the auth hook records a credential's use in
 * the background on every request, refused ones included, which is no write by these routes.
 */
export async function snapshot() {
  const clients = await t.db.select().from(clientIds).orderBy(asc(clientIds.id));
  const keys = await t.db.select().from(apiKeys).orderBy(asc(apiKeys.id));
  const destinations = await t.db
    .select()
    .from(payeeDestinations)
    .orderBy(asc(payeeDestinations.id));
  return {
    counts: { clientIds: clients.length, apiKeys: keys.length, destinations: destinations.length },
    clientIds: clients.map(({ lastUsedAt: _, ...row }) => row),
    apiKeys: keys.map(({ lastUsedAt: _, ...row }) => row),
    destinations,
  };
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
};

export function envelope(statusCode: number, code: string, message: string, errors?: object[]) {
  return {
    statusCode,
    message,
    error: REASONS[statusCode],
    code,
    ...(errors !== undefined && { errors }),
  };
}

export const invalid = (...errors: { field: string; message: string }[]) =>
  envelope(400, 'validation_failed', 'Validation failed', errors);
export const NOT_FOUND = envelope(404, 'client_id_not_found', 'Client ID not found');

/** Asserts the exact refusal and that no row changed. */
export async function refused(request: InjectOptions, status: number, body: object) {
  const before = await snapshot();
  const res = await t.app.inject(request);
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json()).toEqual(body);
  expect(await snapshot()).toEqual(before);
}

export const SURFACES = [
  { prefix: '/v2/client-ids', auth: () => a.apiKey, authB: () => b.apiKey },
  { prefix: '/v1/client-ids', auth: () => a.session, authB: () => b.session },
] as const;
