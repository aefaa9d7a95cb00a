import { asc, eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { evmToTron } from '../chains/tron-address.ts';
import { apiKeys, clientIds, payeeDestinations } from '../db/schema.ts';
import {
  activateDestination,
  type DestinationRow,
  deactivateDestination,
} from '../destinations/destinations.ts';
import { resolveTarget } from '../destinations/target.ts';

/** Client-ID management on `/v2/client-ids` (API key) and `/v1/client-ids` (session). */

const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const OTHER_WALLET = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const B_WALLET = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const TRON_FEE = evmToTron(WALLET);
const SHOP = 'https://shop.example';
const CURRENCY = '/v2/currencies?id=USDC-base';
const START = new Date('2026-11-22T12:00:00Z');

interface Caller {
  readonly accountId: string;
  /** `Authorization: Bearer` with the session from registration. */
  readonly session: Record<string, string>;
  /** `x-api-key` with a key made through `/v1/api-keys`. */
  readonly apiKey: Record<string, string>;
}

let t: TestApp;
let a: Caller;
let b: Caller;
let destination: DestinationRow;
let inactiveDestination: DestinationRow;
let bDestination: DestinationRow;

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

function send(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  payload?: object,
) {
  return t.app.inject({ method, url, headers, ...(payload !== undefined && { payload }) });
}

async function created(prefix: string, caller: Record<string, string>, payload: object) {
  const res = await send('POST', prefix, caller, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; clientId: string } & Record<string, unknown>;
}

/**
 * Every row these routes write, minus `lastUsedAt`: the auth hook records a credential's use in
 * the background on every request, refused ones included, which is no write by these routes.
 */
async function snapshot() {
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

function envelope(statusCode: number, code: string, message: string, errors?: object[]) {
  return {
    statusCode,
    message,
    error: REASONS[statusCode],
    code,
    ...(errors !== undefined && { errors }),
  };
}

const invalid = (...errors: { field: string; message: string }[]) =>
  envelope(400, 'validation_failed', 'Validation failed', errors);
const NOT_FOUND = envelope(404, 'client_id_not_found', 'Client ID not found');

/** Asserts the exact refusal and that no row changed. */
async function refused(request: InjectOptions, status: number, body: object) {
  const before = await snapshot();
  const res = await t.app.inject(request);
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json()).toEqual(body);
  expect(await snapshot()).toEqual(before);
}

const SURFACES = [
  { prefix: '/v2/client-ids', auth: () => a.apiKey, authB: () => b.apiKey },
  { prefix: '/v1/client-ids', auth: () => a.session, authB: () => b.session },
] as const;

describe('POST /v2/client-ids', () => {
  it('creates a browser client ID with every setting, normalised, and answers 201', async () => {
    t.clock.set(START);
    const res = await send('POST', '/v2/client-ids', a.apiKey, {
      label: '  Web shop  ',
      allowedDomains: ['https://Shop.Example/', SHOP, 'http://localhost:3000'],
      feePercentage: '02.50',
      feeAddress: WALLET.toLowerCase(),
      operatorWalletAddress: OTHER_WALLET.toLowerCase(),
      defaultPreApprovalExpiry: 3600,
      defaultAuthorizationExpiry: 600,
      rateLimitPerMinute: 600,
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      clientId: expect.stringMatching(/^cli_[A-Za-z0-9_-]{32}$/),
      label: 'Web shop',
      allowedDomains: [SHOP, 'http://localhost:3000'],
      feePercentage: '2.5',
      feeAddress: WALLET,
      operatorWalletAddress: OTHER_WALLET,
      defaultPreApprovalExpiry: 3600,
      defaultAuthorizationExpiry: 600,
      rateLimitPerMinute: 600,
      status: 'active',
      createdAt: START.toISOString(),
    });
    const [row] = await t.db.select().from(clientIds).where(eq(clientIds.id, body.id));
    expect(row).toMatchObject({
      accountId: a.accountId,
      clientId: body.clientId,
      feePercentage: '2.50',
      rateLimitPerMinute: 600,
      payeeDestinationId: null,
    });
  });

  it('leaves every setting null when only label and domains are sent, and takes null as unset', async () => {
    const body = await created('/v2/client-ids', a.apiKey, {
      label: 'Plain',
      allowedDomains: [SHOP],
      feePercentage: null,
      rateLimitPerMinute: null,
    });
    expect(body).toMatchObject({
      feePercentage: null,
      feeAddress: null,
      operatorWalletAddress: null,
      defaultPreApprovalExpiry: null,
      defaultAuthorizationExpiry: null,
      rateLimitPerMinute: null,
    });
  });

  it('accepts fee percentages 0, 100 and 99.99, a Tron fee address, and every rate-limit tier', async () => {
    for (const [feePercentage, expected] of [
      ['0', '0'],
      ['100', '100'],
      ['99.99', '99.99'],
      ['0.5', '0.5'],
      ['100.00', '100'],
    ]) {
      const body = await created('/v2/client-ids', a.apiKey, {
        label: 'Fees',
        allowedDomains: [SHOP],
        feePercentage,
        feeAddress: TRON_FEE,
      });
      expect(body).toMatchObject({ feePercentage: expected, feeAddress: TRON_FEE });
    }
    for (const rateLimitPerMinute of [120, 300, 600, 1200]) {
      const body = await created('/v2/client-ids', a.apiKey, {
        label: 'Tier',
        allowedDomains: [SHOP],
        rateLimitPerMinute,
      });
      expect(body.rateLimitPerMinute).toBe(rateLimitPerMinute);
    }
  });

  const post = (payload: object): InjectOptions => ({
    method: 'POST',
    url: '/v2/client-ids',
    headers: a.apiKey,
    payload,
  });
  const base = { label: 'Shop', allowedDomains: [SHOP] };

  it.each([
    ['no label', { allowedDomains: [SHOP] }, { field: 'label', message: 'is required' }],
    [
      'a blank label',
      { ...base, label: '   ' },
      { field: 'label', message: 'must be 1 to 100 characters' },
    ],
    [
      'a 101-character label',
      { ...base, label: 'x'.repeat(101) },
      { field: 'label', message: 'must be 1 to 100 characters' },
    ],
    ['no allowedDomains', { label: 'Shop' }, { field: 'allowedDomains', message: 'is required' }],
    [
      'empty allowedDomains',
      { ...base, allowedDomains: [] },
      { field: 'allowedDomains', message: 'must contain at least 1 origin' },
    ],
    [
      'null allowedDomains',
      { ...base, allowedDomains: null },
      { field: 'allowedDomains', message: 'must be array' },
    ],
    [
      '11 allowedDomains',
      { ...base, allowedDomains: Array.from({ length: 11 }, (_, i) => `https://s${i}.example`) },
      { field: 'allowedDomains', message: 'must contain at most 10 origins' },
    ],
    [
      'an http origin',
      { ...base, allowedDomains: ['http://shop.example'] },
      {
        field: 'allowedDomains[0]',
        message: 'must use https; http is allowed only for localhost, 127.0.0.1 and [::1]',
      },
    ],
    [
      'an origin with a path',
      { ...base, allowedDomains: [SHOP, 'https://shop.example/pay'] },
      { field: 'allowedDomains[1]', message: 'must not contain a path, query or fragment' },
    ],
    [
      'a wildcard origin',
      { ...base, allowedDomains: ['https://*.shop.example'] },
      { field: 'allowedDomains[0]', message: 'must not contain wildcards' },
    ],
    [
      'a non-URL origin',
      { ...base, allowedDomains: ['shop.example'] },
      { field: 'allowedDomains[0]', message: 'must be an origin such as https://shop.example' },
    ],
    [
      'feePercentage 100.01',
      { ...base, feePercentage: '100.01', feeAddress: WALLET },
      { field: 'feePercentage', message: 'must be a number from 0 to 100 with at most 2 decimals' },
    ],
    [
      'feePercentage with 3 decimals',
      { ...base, feePercentage: '1.234', feeAddress: WALLET },
      { field: 'feePercentage', message: 'must be a number from 0 to 100 with at most 2 decimals' },
    ],
    [
      'a negative feePercentage',
      { ...base, feePercentage: '-1', feeAddress: WALLET },
      { field: 'feePercentage', message: 'must be a number from 0 to 100 with at most 2 decimals' },
    ],
    [
      'feePercentage in exponent form',
      { ...base, feePercentage: '1e1', feeAddress: WALLET },
      { field: 'feePercentage', message: 'must be a number from 0 to 100 with at most 2 decimals' },
    ],
    [
      'feePercentage as a JSON number',
      { ...base, feePercentage: 1.5, feeAddress: WALLET },
      { field: 'feePercentage', message: 'must be string,null' },
    ],
    [
      'feePercentage without feeAddress',
      { ...base, feePercentage: '1' },
      { field: 'feeAddress', message: 'is required when feePercentage is set' },
    ],
    [
      'feePercentage "0" without feeAddress',
      { ...base, feePercentage: '0' },
      { field: 'feeAddress', message: 'is required when feePercentage is set' },
    ],
    [
      'a bad feeAddress',
      { ...base, feePercentage: '1', feeAddress: '0x1234' },
      {
        field: 'feeAddress',
        message: 'must be an EVM address (0x followed by 40 hex digits) or a Tron address (T…)',
      },
    ],
    [
      'a Tron operatorWalletAddress',
      { ...base, operatorWalletAddress: TRON_FEE },
      {
        field: 'operatorWalletAddress',
        message: 'must be an EVM address (0x followed by 40 hex digits)',
      },
    ],
    [
      'defaultPreApprovalExpiry 0',
      { ...base, defaultPreApprovalExpiry: 0 },
      { field: 'defaultPreApprovalExpiry', message: 'must be >= 1' },
    ],
    [
      'defaultAuthorizationExpiry -5',
      { ...base, defaultAuthorizationExpiry: -5 },
      { field: 'defaultAuthorizationExpiry', message: 'must be >= 1' },
    ],
    [
      'a fractional expiry',
      { ...base, defaultPreApprovalExpiry: 1.5 },
      { field: 'defaultPreApprovalExpiry', message: 'must be integer,null' },
    ],
    [
      'an expiry as a string',
      { ...base, defaultAuthorizationExpiry: '60' },
      { field: 'defaultAuthorizationExpiry', message: 'must be integer,null' },
    ],
    [
      'an expiry past the column',
      { ...base, defaultPreApprovalExpiry: 2_147_483_648 },
      { field: 'defaultPreApprovalExpiry', message: 'must be <= 2147483647' },
    ],
    [
      'rateLimitPerMinute 150',
      { ...base, rateLimitPerMinute: 150 },
      {
        field: 'rateLimitPerMinute',
        message: 'must be one of 120, 300, 600, 1200, or null for the default tier',
      },
    ],
    [
      'payeeDestinationId (a /v1 field)',
      { ...base, payeeDestinationId: null },
      { field: 'payeeDestinationId', message: 'is not allowed' },
    ],
    [
      'status on create',
      { ...base, status: 'inactive' },
      { field: 'status', message: 'is not allowed' },
    ],
  ])('answers 400 for %s and writes nothing', async (_name, payload, error) => {
    await refused(post(payload), 400, invalid(error));
  });

  it('names every bad field in one answer', async () => {
    await refused(
      post({
        label: '',
        allowedDomains: ['http://shop.example'],
        feePercentage: '101',
        operatorWalletAddress: 'nope',
        rateLimitPerMinute: 1,
      }),
      400,
      invalid(
        { field: 'label', message: 'must be 1 to 100 characters' },
        {
          field: 'allowedDomains[0]',
          message: 'must use https; http is allowed only for localhost, 127.0.0.1 and [::1]',
        },
        {
          field: 'feePercentage',
          message: 'must be a number from 0 to 100 with at most 2 decimals',
        },
        { field: 'feeAddress', message: 'is required when feePercentage is set' },
        {
          field: 'operatorWalletAddress',
          message: 'must be an EVM address (0x followed by 40 hex digits)',
        },
        {
          field: 'rateLimitPerMinute',
          message: 'must be one of 120, 300, 600, 1200, or null for the default tier',
        },
      ),
    );
  });
});

describe('credentials', () => {
  it('takes only an API key on /v2 and only a session on /v1', async () => {
    const backend = await created('/v1/client-ids', a.session, { label: 'Backend' });
    const notAccepted = (header: string, use: string) =>
      envelope(
        403,
        'credential_not_accepted',
        `This endpoint does not accept ${header}; use ${use}`,
      );
    const session = 'a session (session_token cookie or Authorization: Bearer)';
    for (const [method, suffix] of [
      ['GET', ''],
      ['POST', ''],
      ['GET', `/${backend.id}`],
      ['PUT', `/${backend.id}`],
      ['DELETE', `/${backend.id}`],
    ] as const) {
      const payload =
        method === 'POST' || method === 'PUT' ? { label: 'X', allowedDomains: [SHOP] } : undefined;
      const request = (url: string, headers: Record<string, string>): InjectOptions => ({
        method,
        url,
        headers,
        ...(payload && { payload }),
      });
      await refused(
        request(`/v2/client-ids${suffix}`, a.session),
        403,
        notAccepted(session, 'x-api-key'),
      );
      await refused(
        request(`/v2/client-ids${suffix}`, { 'x-client-id': backend.clientId }),
        403,
        notAccepted('x-client-id', 'x-api-key'),
      );
      await refused(
        request(`/v1/client-ids${suffix}`, a.apiKey),
        403,
        notAccepted('x-api-key', session),
      );
      await refused(
        request(`/v1/client-ids${suffix}`, {}),
        401,
        envelope(401, 'missing_credentials', `Missing credentials: send ${session}`),
      );
    }
  });

  it('accepts the session cookie as well as the bearer header', async () => {
    const token = (a.session.authorization ?? '').replace('Bearer ', '');
    const res = await send('GET', '/v1/client-ids', { cookie: `session_token=${token}` });
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe.each(SURFACES)('$prefix reads', ({ prefix, auth, authB }) => {
  it('lists only the caller’s client IDs, revoked ones included, in the list shape', async () => {
    const mine = await created(prefix, auth(), { label: 'Listed', allowedDomains: [SHOP] });
    const theirs = await created(prefix, authB(), { label: 'Theirs', allowedDomains: [SHOP] });
    const revoked = await created(prefix, auth(), { label: 'Gone', allowedDomains: [SHOP] });
    expect((await send('DELETE', `${prefix}/${revoked.id}`, auth())).statusCode).toBe(200);

    const res = await send('GET', prefix, auth());
    expect(res.statusCode).toBe(200);
    const list = res.json() as { id: string; status: string }[];
    const rows = await t.db.select().from(clientIds).where(eq(clientIds.accountId, a.accountId));
    expect(list.map((c) => c.id).sort()).toEqual(rows.map((r) => r.id).sort());
    expect(list.map((c) => c.id)).not.toContain(theirs.id);
    expect(res.body).not.toContain(theirs.clientId);
    expect(list.find((c) => c.id === revoked.id)?.status).toBe('revoked');
    const item = list.find((c) => c.id === mine.id);
    expect(item).toEqual({
      id: mine.id,
      clientId: mine.clientId,
      label: 'Listed',
      allowedDomains: [SHOP],
      status: 'active',
      createdAt: t.clock.now().toISOString(),
      lastUsedAt: null,
      ...(prefix === '/v1/client-ids' && { payeeDestinationId: null }),
    });

    const other = await send('GET', prefix, authB());
    expect(other.body).not.toContain(mine.clientId);
    expect((other.json() as { id: string }[]).map((c) => c.id)).toContain(theirs.id);
  });

  it('shows one client ID with updatedAt and lastUsedAt', async () => {
    const made = await created(prefix, auth(), {
      label: 'Detail',
      allowedDomains: [SHOP],
      feePercentage: '1',
      feeAddress: WALLET,
    });
    const res = await send('GET', `${prefix}/${made.id}`, auth());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...made, updatedAt: made.createdAt, lastUsedAt: null });
  });

  it('records lastUsedAt once the client ID is used', async () => {
    const made = await created(prefix, auth(), { label: 'Used', allowedDomains: [SHOP] });
    const use = await send('GET', CURRENCY, { 'x-client-id': made.clientId, origin: SHOP });
    expect(use.statusCode).toBe(200);
    await t.usage.flush();
    const res = await send('GET', `${prefix}/${made.id}`, auth());
    expect(res.json().lastUsedAt).toBe(t.clock.now().toISOString());
  });

  it('answers 404 Client ID not found for another account’s id, an unknown uuid, a cli_ value or a malformed id', async () => {
    const theirs = await created(prefix, authB(), { label: 'Theirs', allowedDomains: [SHOP] });
    for (const id of [
      theirs.id,
      '00000000-0000-4000-8000-000000000000',
      theirs.clientId,
      'not-a-uuid',
      `${theirs.id}x`,
    ]) {
      await refused(
        { method: 'GET', url: `${prefix}/${encodeURIComponent(id)}`, headers: auth() },
        404,
        NOT_FOUND,
      );
    }
  });
});

describe.each(SURFACES)('$prefix changes', ({ prefix, auth, authB }) => {
  it('changes only the fields sent, moves updatedAt, and unsets with null', async () => {
    t.clock.set(START);
    const made = await created(prefix, auth(), {
      label: 'Before',
      allowedDomains: [SHOP],
      feePercentage: '1.25',
      feeAddress: WALLET,
      operatorWalletAddress: WALLET,
      defaultPreApprovalExpiry: 60,
      rateLimitPerMinute: 120,
    });
    t.clock.advance(60_000);
    const label = await send('PUT', `${prefix}/${made.id}`, auth(), { label: 'After' });
    expect(label.statusCode, label.body).toBe(200);
    expect(label.json()).toEqual({
      ...made,
      label: 'After',
      updatedAt: t.clock.now().toISOString(),
      lastUsedAt: null,
    });

    const unset = await send('PUT', `${prefix}/${made.id}`, auth(), {
      feePercentage: null,
      feeAddress: null,
      operatorWalletAddress: null,
      defaultPreApprovalExpiry: null,
      rateLimitPerMinute: null,
      defaultAuthorizationExpiry: 900,
      allowedDomains: ['https://other.example', SHOP],
    });
    expect(unset.statusCode, unset.body).toBe(200);
    expect(unset.json()).toMatchObject({
      label: 'After',
      allowedDomains: ['https://other.example', SHOP],
      feePercentage: null,
      feeAddress: null,
      operatorWalletAddress: null,
      defaultPreApprovalExpiry: null,
      defaultAuthorizationExpiry: 900,
      rateLimitPerMinute: null,
    });
    const [row] = await t.db.select().from(clientIds).where(eq(clientIds.id, made.id));
    expect(row).toMatchObject({ feePercentage: null, rateLimitPerMinute: null });

    const tier = await send('PUT', `${prefix}/${made.id}`, auth(), { rateLimitPerMinute: 1200 });
    expect(tier.json().rateLimitPerMinute).toBe(1200);
    const [tiered] = await t.db.select().from(clientIds).where(eq(clientIds.id, made.id));
    expect(tiered?.rateLimitPerMinute).toBe(1200);
  });

  it('keeps feeAddress required while feePercentage is set', async () => {
    const made = await created(prefix, auth(), {
      label: 'Fee',
      allowedDomains: [SHOP],
      feePercentage: '1',
      feeAddress: WALLET,
    });
    const put = (payload: object): InjectOptions => ({
      method: 'PUT',
      url: `${prefix}/${made.id}`,
      headers: auth(),
      payload,
    });
    const required = invalid({
      field: 'feeAddress',
      message: 'is required when feePercentage is set',
    });
    await refused(put({ feeAddress: null }), 400, required);
    await refused(put({ feePercentage: '2', feeAddress: null }), 400, required);
    const plain = await created(prefix, auth(), { label: 'No fee', allowedDomains: [SHOP] });
    await refused({ ...put({ feePercentage: '2' }), url: `${prefix}/${plain.id}` }, 400, required);
    // Changing the percentage alone keeps the stored address.
    const res = await send('PUT', `${prefix}/${made.id}`, auth(), { feePercentage: '3' });
    expect(res.json()).toMatchObject({ feePercentage: '3', feeAddress: WALLET });
  });

  it.each([
    [{ label: null }, { field: 'label', message: 'must be string' }],
    [{ label: ' ' }, { field: 'label', message: 'must be 1 to 100 characters' }],
    [{ status: null }, { field: 'status', message: 'must be equal to one of the allowed values' }],
    [
      { status: 'paused' },
      { field: 'status', message: 'must be equal to one of the allowed values' },
    ],
    [
      { feePercentage: '12.345', feeAddress: WALLET },
      { field: 'feePercentage', message: 'must be a number from 0 to 100 with at most 2 decimals' },
    ],
    [
      { operatorWalletAddress: '0xabc' },
      {
        field: 'operatorWalletAddress',
        message: 'must be an EVM address (0x followed by 40 hex digits)',
      },
    ],
    [
      { defaultPreApprovalExpiry: 0 },
      { field: 'defaultPreApprovalExpiry', message: 'must be >= 1' },
    ],
    [
      { rateLimitPerMinute: 0 },
      {
        field: 'rateLimitPerMinute',
        message: 'must be one of 120, 300, 600, 1200, or null for the default tier',
      },
    ],
    [
      { allowedDomains: ['https://a.example/x'] },
      { field: 'allowedDomains[0]', message: 'must not contain a path, query or fragment' },
    ],
    [{ clientId: 'cli_mine' }, { field: 'clientId', message: 'is not allowed' }],
  ])('answers 400 for %j and writes nothing', async (payload, error) => {
    const made = await created(prefix, auth(), { label: 'Kept', allowedDomains: [SHOP] });
    await refused(
      { method: 'PUT', url: `${prefix}/${made.id}`, headers: auth(), payload },
      400,
      invalid(error),
    );
  });

  it('switches a client ID off and on: inactive answers 403 on the API, active works again', async () => {
    const made = await created(prefix, auth(), { label: 'Toggle', allowedDomains: [SHOP] });
    const use = () => send('GET', CURRENCY, { 'x-client-id': made.clientId, origin: SHOP });
    expect((await use()).statusCode).toBe(200);

    const off = await send('PUT', `${prefix}/${made.id}`, auth(), { status: 'inactive' });
    expect(off.json().status).toBe('inactive');
    const refusedUse = await use();
    expect(refusedUse.statusCode).toBe(403);
    expect(refusedUse.json()).toEqual(envelope(403, 'inactive_client_id', 'Client ID is inactive'));

    const on = await send('PUT', `${prefix}/${made.id}`, auth(), { status: 'active' });
    expect(on.json().status).toBe('active');
    expect((await use()).statusCode).toBe(200);
  });

  it('revokes for good with DELETE: 403 on the API, and no PUT can reactivate it', async () => {
    const made = await created(prefix, auth(), { label: 'Doomed', allowedDomains: [SHOP] });
    t.clock.advance(1_000);
    const res = await send('DELETE', `${prefix}/${made.id}`, auth());
    expect(res.statusCode, res.body).toBe(200);
    const revoked = {
      ...made,
      status: 'revoked',
      updatedAt: t.clock.now().toISOString(),
      lastUsedAt: null,
    };
    expect(res.json()).toEqual(revoked);
    const use = await send('GET', CURRENCY, { 'x-client-id': made.clientId, origin: SHOP });
    expect(use.statusCode).toBe(403);
    expect(use.json()).toEqual(envelope(403, 'revoked_client_id', 'Client ID has been revoked'));

    for (const status of ['active', 'inactive']) {
      await refused(
        {
          method: 'PUT',
          url: `${prefix}/${made.id}`,
          headers: auth(),
          payload: { status, label: 'Back' },
        },
        400,
        envelope(400, 'client_id_revoked', 'A revoked client ID cannot be reactivated', [
          { field: 'status', message: 'cannot change once revoked' },
          { field: 'label', message: 'cannot change once revoked' },
        ]),
      );
    }
    // Revoking again, by DELETE or by PUT status revoked alone, answers the record as it was
    // revoked and writes nothing.
    t.clock.advance(1_000);
    const again = await send('DELETE', `${prefix}/${made.id}`, auth());
    expect(again.json()).toEqual(revoked);
    const before = await snapshot();
    const put = await send('PUT', `${prefix}/${made.id}`, auth(), { status: 'revoked' });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual(revoked);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['a label', { label: 'Renamed' }],
    ['allowed domains', { allowedDomains: ['https://other.example'] }],
    ['fees', { feePercentage: '1', feeAddress: WALLET }],
    ['an unset (null) setting', { rateLimitPerMinute: null }],
    ['an operator wallet and status revoked', { status: 'revoked', operatorWalletAddress: WALLET }],
  ])(
    'refuses to change %s of a revoked client ID: 400, nothing written',
    async (_name, payload) => {
      const made = await created(prefix, auth(), { label: 'Revoked', allowedDomains: [SHOP] });
      expect((await send('DELETE', `${prefix}/${made.id}`, auth())).statusCode).toBe(200);
      const fields = Object.keys(payload).filter((field) => field !== 'status');
      await refused(
        { method: 'PUT', url: `${prefix}/${made.id}`, headers: auth(), payload },
        400,
        envelope(
          400,
          'client_id_revoked',
          'A revoked client ID cannot be changed',
          fields.map((field) => ({ field, message: 'cannot change once revoked' })),
        ),
      );
    },
  );

  it('revokes with PUT status revoked as well', async () => {
    const made = await created(prefix, auth(), { label: 'Put off', allowedDomains: [SHOP] });
    const res = await send('PUT', `${prefix}/${made.id}`, auth(), { status: 'revoked' });
    expect(res.json().status).toBe('revoked');
    expect(
      (await send('GET', CURRENCY, { 'x-client-id': made.clientId, origin: SHOP })).statusCode,
    ).toBe(403);
  });

  it('never lets one account read or change another’s client ID, either way', async () => {
    const mine = await created(prefix, auth(), { label: 'Mine', allowedDomains: [SHOP] });
    const theirs = await created(prefix, authB(), { label: 'Theirs', allowedDomains: [SHOP] });
    for (const [caller, target] of [
      [auth(), theirs],
      [authB(), mine],
    ] as const) {
      const url = `${prefix}/${target.id}`;
      await refused({ method: 'GET', url, headers: caller }, 404, NOT_FOUND);
      await refused(
        { method: 'PUT', url, headers: caller, payload: { label: 'taken over' } },
        404,
        NOT_FOUND,
      );
      await refused(
        { method: 'PUT', url, headers: caller, payload: { status: 'inactive' } },
        404,
        NOT_FOUND,
      );
      // An invalid body on someone else's id still answers 404: ownership is checked first.
      await refused(
        { method: 'PUT', url, headers: caller, payload: { label: '' } },
        404,
        NOT_FOUND,
      );
      await refused({ method: 'DELETE', url, headers: caller }, 404, NOT_FOUND);
      const list = await send('GET', prefix, caller);
      expect(list.body).not.toContain(target.id);
      expect(list.body).not.toContain(target.clientId);
    }
    for (const target of [mine, theirs]) {
      const [row] = await t.db.select().from(clientIds).where(eq(clientIds.id, target.id));
      expect(row).toMatchObject({ status: 'active', label: target.label });
    }
  });
});

describe('/v2 and /v1 differences', () => {
  it('refuses to empty allowedDomains on /v2, but a /v1 backend client ID stays editable there', async () => {
    const browser = await created('/v2/client-ids', a.apiKey, {
      label: 'B',
      allowedDomains: [SHOP],
    });
    const put = (id: string, payload: object): InjectOptions => ({
      method: 'PUT',
      url: `/v2/client-ids/${id}`,
      headers: a.apiKey,
      payload,
    });
    await refused(
      put(browser.id, { allowedDomains: [] }),
      400,
      invalid({ field: 'allowedDomains', message: 'must contain at least 1 origin' }),
    );
    await refused(
      put(browser.id, { allowedDomains: null }),
      400,
      invalid({ field: 'allowedDomains', message: 'must be array' }),
    );
    await refused(
      put(browser.id, { payeeDestinationId: destination.destinationId }),
      400,
      invalid({ field: 'payeeDestinationId', message: 'is not allowed' }),
    );

    const backend = await created('/v1/client-ids', a.session, { label: 'Server' });
    const renamed = await send('PUT', `/v2/client-ids/${backend.id}`, a.apiKey, {
      label: 'Server 2',
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ label: 'Server 2', allowedDomains: [] });
    expect(renamed.json()).not.toHaveProperty('payeeDestinationId');
  });

  it('makes backend client IDs on /v1: no domains, no Origin check; domains can be emptied with [] or null', async () => {
    const backend = await created('/v1/client-ids', a.session, { label: 'Server' });
    expect(backend).toMatchObject({ allowedDomains: [], payeeDestinationId: null });
    expect((await send('GET', CURRENCY, { 'x-client-id': backend.clientId })).statusCode).toBe(200);

    const browser = await created('/v1/client-ids', a.session, {
      label: 'Web',
      allowedDomains: [SHOP],
    });
    const noOrigin = await send('GET', CURRENCY, { 'x-client-id': browser.clientId });
    expect(noOrigin.json()).toEqual(envelope(403, 'origin_required', 'Origin header is required'));
    for (const allowedDomains of [null, []]) {
      await send('PUT', `/v1/client-ids/${browser.id}`, a.session, { allowedDomains: [SHOP] });
      const res = await send('PUT', `/v1/client-ids/${browser.id}`, a.session, { allowedDomains });
      expect(res.json().allowedDomains).toEqual([]);
      expect((await send('GET', CURRENCY, { 'x-client-id': browser.clientId })).statusCode).toBe(
        200,
      );
    }
    await refused(
      {
        method: 'POST',
        url: '/v1/client-ids',
        headers: a.session,
        payload: {
          label: 'Many',
          allowedDomains: Array.from({ length: 11 }, (_, i) => `https://s${i}.example`),
        },
      },
      400,
      invalid({ field: 'allowedDomains', message: 'must contain at most 10 origins' }),
    );
  });
});

describe('payee destination binding on /v1', () => {
  const bindingError = (message: string) => invalid({ field: 'payeeDestinationId', message });

  it('binds an active destination of the account on create, shows it, and unbinds with null', async () => {
    const made = await created('/v1/client-ids', a.session, {
      label: 'Bound',
      payeeDestinationId: destination.destinationId,
    });
    expect(made.payeeDestinationId).toBe(destination.destinationId);
    const [row] = await t.db.select().from(clientIds).where(eq(clientIds.id, made.id));
    expect(row?.payeeDestinationId).toBe(destination.id);
    const list = (await send('GET', '/v1/client-ids', a.session)).json() as Record<
      string,
      unknown
    >[];
    expect(list.find((c) => c.id === made.id)?.payeeDestinationId).toBe(destination.destinationId);
    expect((await send('GET', `/v2/client-ids/${made.id}`, a.apiKey)).json()).not.toHaveProperty(
      'payeeDestinationId',
    );

    // A PUT without the field keeps the binding; null removes it; a new PUT binds again.
    const renamed = await send('PUT', `/v1/client-ids/${made.id}`, a.session, { label: 'Renamed' });
    expect(renamed.json().payeeDestinationId).toBe(destination.destinationId);
    const unbound = await send('PUT', `/v1/client-ids/${made.id}`, a.session, {
      payeeDestinationId: null,
    });
    expect(unbound.json().payeeDestinationId).toBeNull();
    const [cleared] = await t.db.select().from(clientIds).where(eq(clientIds.id, made.id));
    expect(cleared?.payeeDestinationId).toBeNull();
    const rebound = await send('PUT', `/v1/client-ids/${made.id}`, a.session, {
      payeeDestinationId: destination.destinationId,
    });
    expect(rebound.json().payeeDestinationId).toBe(destination.destinationId);
  });

  it('links made with a bound client ID pay the bound destination', async () => {
    const made = await created('/v1/client-ids', a.session, {
      label: 'Checkout',
      payeeDestinationId: destination.destinationId,
    });
    const link = await send(
      'POST',
      '/v2/secure-payments',
      { 'x-client-id': made.clientId },
      { requests: [{ amount: '5' }] },
    );
    expect(link.statusCode, link.body).toBe(201);
  });

  it.each([
    [
      'an inactive destination',
      () => inactiveDestination.destinationId,
      'is inactive; bind an active payee destination',
    ],
    [
      'another account’s destination',
      () => bDestination.destinationId,
      'is not a payee destination of this account',
    ],
    ['a malformed destination id', () => 'not-a-destination', 'is not a valid destination ID'],
  ])(
    'refuses %s with 400 on create and on change, writing nothing',
    async (_name, value, message) => {
      await refused(
        {
          method: 'POST',
          url: '/v1/client-ids',
          headers: a.session,
          payload: { label: 'X', payeeDestinationId: value() },
        },
        400,
        bindingError(message),
      );
      const made = await created('/v1/client-ids', a.session, {
        label: 'Bound',
        payeeDestinationId: destination.destinationId,
      });
      await refused(
        {
          method: 'PUT',
          url: `/v1/client-ids/${made.id}`,
          headers: a.session,
          payload: { payeeDestinationId: value() },
        },
        400,
        bindingError(message),
      );
    },
  );

  it('neither binds nor unbinds a revoked client ID', async () => {
    const made = await created('/v1/client-ids', a.session, {
      label: 'Revoked binding',
      payeeDestinationId: destination.destinationId,
    });
    expect((await send('DELETE', `/v1/client-ids/${made.id}`, a.session)).statusCode).toBe(200);
    const error = envelope(400, 'client_id_revoked', 'A revoked client ID cannot be changed', [
      { field: 'payeeDestinationId', message: 'cannot change once revoked' },
    ]);
    for (const payeeDestinationId of [null, destination.destinationId]) {
      await refused(
        {
          method: 'PUT',
          url: `/v1/client-ids/${made.id}`,
          headers: a.session,
          payload: { payeeDestinationId },
        },
        400,
        error,
      );
    }
  });

  it('reports a bad binding together with other bad fields', async () => {
    await refused(
      {
        method: 'POST',
        url: '/v1/client-ids',
        headers: a.session,
        payload: { label: '', payeeDestinationId: inactiveDestination.destinationId },
      },
      400,
      invalid(
        { field: 'label', message: 'must be 1 to 100 characters' },
        { field: 'payeeDestinationId', message: 'is inactive; bind an active payee destination' },
      ),
    );
  });
});
