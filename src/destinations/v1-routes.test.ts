import { and, asc, eq } from 'drizzle-orm';
import { type Hex, serializeSignature } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount, sign } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant } from '../../test/fixtures.ts';
import { issueApiKey } from '../auth/api-keys.ts';
import { tronMessageHash } from '../auth/siwe.ts';
import { evmToTron } from '../chains/tron-address.ts';
import { clientIds, destinationNonces, payeeDestinations, requests } from '../db/schema.ts';
import { activateDestination, deactivateDestination } from './destinations.ts';
import { resolveTarget } from './target.ts';

/**
 * The /v1/payee-destination routes of the auth API, called with sessions opened the real way
 * (SIWE challenge, signed, verified). They share their records with /v2/payee-destination.
 */

const BASE = 8453;
const TRON = 728126428;
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const DAI_BASE = '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb';
const USDT_TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const DEFAULT_POLICY = {
  mode: 'off',
  screeningProvider: null,
  hideUntilApproved: false,
  hidePayeeAddress: false,
};
const KYT_POLICY = {
  mode: 'kyt_all_wallets',
  screeningProvider: 'hypernative',
  hideUntilApproved: true,
  hidePayeeAddress: false,
};
const WALLET_REQUIRED = {
  message: 'A wallet session is required',
  code: 'wallet_session_required',
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** A new key per call (0x…01, 0x…02, …), so every test signs in as a wallet of its own. */
let keys = 0;
function freshKey(): Hex {
  keys += 1;
  return `0x${keys.toString(16).padStart(64, '0')}`;
}

interface Session {
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
async function evmSession(): Promise<Session & { account: PrivateKeyAccount }> {
  const account = privateKeyToAccount(freshKey());
  const session = await signIn(account.address, (message) => account.signMessage({ message }));
  return { ...session, account };
}

/** A Tron wallet signed in with Tron's message signing v2. */
async function tronSession(): Promise<Session> {
  const privateKey = freshKey();
  const address = evmToTron(privateKeyToAccount(privateKey).address);
  return signIn(address, async (message) =>
    serializeSignature(await sign({ hash: tronMessageHash(message), privateKey })),
  );
}

let emails = 0;
async function emailSession(): Promise<Session> {
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

function create(session: Session, payload: object) {
  return t.app.inject({
    method: 'POST',
    url: '/v1/payee-destination',
    headers: session.headers,
    payload,
  });
}

function change(session: Session, payload: object) {
  return t.app.inject({
    method: 'PUT',
    url: '/v1/payee-destination',
    headers: session.headers,
    payload,
  });
}

function getOwn(session: Session) {
  return t.app.inject({ method: 'GET', url: '/v1/payee-destination', headers: session.headers });
}

function payoutLookup(session: Session, walletAddress: string) {
  return t.app.inject({
    method: 'GET',
    url: `/v1/payee-destination/payout-lookup?walletAddress=${encodeURIComponent(walletAddress)}`,
    headers: session.headers,
  });
}

function lookup(session: Session, destinationId: string) {
  return t.app.inject({
    method: 'GET',
    url: `/v1/payee-destination/lookup?destinationId=${encodeURIComponent(destinationId)}`,
    headers: session.headers,
  });
}

function deactivate(session: Session, destinationId: string) {
  return t.app.inject({
    method: 'PATCH',
    url: '/v1/payee-destination/deactivate',
    headers: session.headers,
    payload: { destinationId },
  });
}

async function created(
  session: Session,
  payload: object = { tokenAddress: USDC_BASE, chainId: BASE },
) {
  const res = await create(session, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

interface FieldErrorJson {
  field: string;
  message: string;
}

/** The field errors of a 400 Validation failed answer. */
function validationErrors(res: { statusCode: number; json<T>(): T }): FieldErrorJson[] {
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
async function writesNothing<T>(send: () => Promise<T>): Promise<T> {
  const before = await snapshot();
  const res = await send();
  expect(await snapshot()).toEqual(before);
  return res;
}

/** A /v1 client ID of the session's account, bound to `payeeDestinationId`. */
async function boundClientId(session: Session, payeeDestinationId: string) {
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
async function boundTo(session: Session, id: string): Promise<string | null> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v1/client-ids/${id}`,
    headers: session.headers,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ payeeDestinationId: string | null }>().payeeDestinationId;
}

/** The wallet's own EIP-712 signature, then POST /v2/payee-destination with the API key. */
async function addViaV2(account: PrivateKeyAccount, apiKey: string, tokenAddress: string) {
  const headers = { 'x-api-key': apiKey };
  const search = new URLSearchParams({
    walletAddress: account.address,
    action: 'add',
    tokenAddress,
    chainId: String(BASE),
  });
  const data = await t.app.inject({
    method: 'GET',
    url: `/v2/payee-destination/signing-data?${search}`,
    headers,
  });
  expect(data.statusCode, data.body).toBe(200);
  const { typedData, nonce } = data.json();
  const signature = await account.signTypedData({
    ...typedData,
    message: {
      ...typedData.message,
      chainId: BigInt(typedData.message.chainId),
      expiresAt: BigInt(typedData.message.expiresAt),
    },
  });
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/payee-destination',
    headers,
    payload: { signature, nonce },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('POST /v1/payee-destination', () => {
  it('creates the session wallet’s destination (201) with the default access policy', async () => {
    const payee = await evmSession();
    const res = await create(payee, { tokenAddress: USDC_BASE.toLowerCase(), chainId: BASE });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    const checksum = /#([0-9A-F]{8}):/.exec(body.destinationId)?.[1];
    expect(checksum).toBeDefined();
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      destinationId: `${payee.address}@eip155:8453#${checksum}:${USDC_BASE}`,
      walletAddress: payee.address,
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: DEFAULT_POLICY,
      // ERC-7930 v1: version 0001, eip155 0000, 2-byte chain ref 0x2105, 20-byte address.
      binaryInteropAddress: `0x0001000002210514${payee.address.slice(2).toLowerCase()}`,
      humanReadableInteropAddress: `${payee.address}@eip155:8453#${checksum}`,
      claimed: true,
      active: true,
      createdAt: expect.any(String),
    });
    expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);
    expect((await getOwn(payee)).json()).toEqual(body);
  });

  it('stores a KYT access policy and returns it', async () => {
    const payee = await evmSession();
    const body = await created(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: {
        mode: 'kyt_all_wallets',
        screeningProvider: 'hypernative',
        hideUntilApproved: true,
      },
    });
    expect(body.accessPolicy).toEqual(KYT_POLICY);
    expect((await getOwn(payee)).json().accessPolicy).toEqual(KYT_POLICY);
  });

  it.each([
    [{ mode: 'off' }, DEFAULT_POLICY],
    [
      { mode: 'off', screeningProvider: null, hidePayeeAddress: true },
      { ...DEFAULT_POLICY, hidePayeeAddress: true },
    ],
    [{}, DEFAULT_POLICY],
    [
      { mode: 'kyt_all_wallets', screeningProvider: 'merklescience' },
      { ...DEFAULT_POLICY, mode: 'kyt_all_wallets', screeningProvider: 'merklescience' },
    ],
  ])('accepts access policy %j as %j', async (accessPolicy, stored) => {
    const payee = await evmSession();
    const body = await created(payee, { tokenAddress: USDC_BASE, chainId: BASE, accessPolicy });
    expect(body.accessPolicy).toEqual(stored);
  });

  it.each([
    [{ mode: 'kyt_all_wallets' }, 'is required when mode is kyt_all_wallets'],
    [
      { mode: 'kyt_all_wallets', screeningProvider: null },
      'is required when mode is kyt_all_wallets',
    ],
    [{ mode: 'off', screeningProvider: 'hypernative' }, 'must be null or omitted when mode is off'],
    // mode defaults to off, so a provider alone is refused too.
    [{ screeningProvider: 'merklescience' }, 'must be null or omitted when mode is off'],
  ])('refuses access policy %j: screeningProvider %s', async (accessPolicy, message) => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: USDC_BASE, chainId: BASE, accessPolicy }),
    );
    expect(validationErrors(res)).toEqual([{ field: 'accessPolicy.screeningProvider', message }]);
    expect((await getOwn(payee)).json()).toBeNull();
  });

  it.each([
    ['mode inherit (links only)', { mode: 'inherit' }, 'accessPolicy.mode'],
    [
      'an unknown provider',
      { mode: 'kyt_all_wallets', screeningProvider: 'chainalysis' },
      'accessPolicy.screeningProvider',
    ],
    [
      'a non-boolean hideUntilApproved',
      { hideUntilApproved: 'yes' },
      'accessPolicy.hideUntilApproved',
    ],
    [
      'a payer allowlist (links only)',
      { allowedPayerAddresses: [] },
      'accessPolicy.allowedPayerAddresses',
    ],
  ])('refuses an access policy with %s as a schema error', async (_case, accessPolicy, field) => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: USDC_BASE, chainId: BASE, accessPolicy }),
    );
    expect(validationErrors(res).map((e) => e.field)).toContain(field);
  });

  it('creating another token ends the first; re-creating the first reactivates its record', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const second = await created(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(second.destinationId).not.toBe(first.destinationId);
    expect((await getOwn(payee)).json()).toMatchObject({ id: second.id, active: true });
    expect((await lookup(payee, first.destinationId)).json().active).toBe(false);

    const again = await created(payee);
    expect(again).toMatchObject({ id: first.id, destinationId: first.destinationId, active: true });
    expect((await lookup(payee, second.destinationId)).json().active).toBe(false);
  });

  it('re-creating the active destination updates its policy in place; an omitted policy is the default', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const kyt = await created(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: {
        mode: 'kyt_all_wallets',
        screeningProvider: 'hypernative',
        hideUntilApproved: true,
      },
    });
    expect(kyt).toMatchObject({ id: first.id, accessPolicy: KYT_POLICY, active: true });
    const reset = await created(payee);
    expect(reset).toMatchObject({ id: first.id, accessPolicy: DEFAULT_POLICY });
  });

  it('refuses a bad body without ending the active destination or moving its client IDs', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    await boundClientId(payee, first.destinationId);
    const res = await writesNothing(() =>
      create(payee, {
        tokenAddress: DAI_BASE,
        chainId: BASE,
        accessPolicy: { mode: 'kyt_all_wallets' },
      }),
    );
    expect(validationErrors(res).map((e) => e.field)).toEqual(['accessPolicy.screeningProvider']);
    expect((await getOwn(payee)).json()).toEqual(first);
  });

  it('refuses an unknown chain id', async () => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: USDC_BASE, chainId: 999999 }),
    );
    expect(validationErrors(res)).toEqual([
      { field: 'chainId', message: expect.stringMatching(/^is not a supported chain \(.*8453/) },
    ]);
  });

  it('refuses a token that is not a supported currency on the chain', async () => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: '0x1111111111111111111111111111111111111111', chainId: BASE }),
    );
    expect(validationErrors(res)).toEqual([
      { field: 'tokenAddress', message: 'is not a supported token on base' },
    ]);
  });

  it.each([
    ['malformed', '0x1234'],
    ['a Tron address', USDT_TRON],
  ])('refuses a %s token on an EVM chain', async (_case, tokenAddress) => {
    const payee = await evmSession();
    const res = await writesNothing(() => create(payee, { tokenAddress, chainId: BASE }));
    expect(validationErrors(res)).toEqual([
      { field: 'tokenAddress', message: 'must be a valid EVM address' },
    ]);
  });

  it('refuses the Tron chain for an EVM wallet', async () => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: USDT_TRON, chainId: TRON }),
    );
    expect(validationErrors(res)).toEqual([
      {
        field: 'chainId',
        message: 'is a Tron network; sign in with a Tron wallet to receive on it',
      },
    ]);
  });

  it.each([
    ['tokenAddress', { chainId: BASE }, 'is required'],
    ['chainId', { tokenAddress: USDC_BASE }, 'is required'],
    [
      'walletAddress',
      { tokenAddress: USDC_BASE, chainId: BASE, walletAddress: '0x1' },
      'is not allowed',
    ],
  ])('refuses a body with %s %s', async (field, payload, message) => {
    const payee = await evmSession();
    const res = await writesNothing(() => create(payee, payload));
    expect(validationErrors(res)).toContainEqual({ field, message });
  });

  it('refuses a chain id sent as a string (bodies are not coerced)', async () => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: USDC_BASE, chainId: '8453' }),
    );
    expect(validationErrors(res)).toContainEqual(expect.objectContaining({ field: 'chainId' }));
  });
});

describe('Tron wallets', () => {
  it('sign in with Tron message signing and create a Tron destination', async () => {
    const payee = await tronSession();
    expect(payee.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const body = await created(payee, { tokenAddress: USDT_TRON, chainId: TRON });
    expect(body.destinationId).toMatch(
      new RegExp(`^${payee.address}@eip155:728126428#[0-9A-F]{8}:${USDT_TRON}$`),
    );
    expect(body).toMatchObject({
      walletAddress: payee.address,
      tokenAddress: USDT_TRON,
      chainId: TRON,
      accessPolicy: DEFAULT_POLICY,
      claimed: true,
      active: true,
    });
    expect(body.binaryInteropAddress).toMatch(/^0x00010000042b6653dc14[0-9a-f]{40}$/);
    expect((await getOwn(payee)).json()).toEqual(body);

    const payer = await evmSession();
    expect((await payoutLookup(payer, payee.address)).json()).toEqual({
      destinationId: body.destinationId,
      walletAddress: payee.address,
      tokenAddress: USDT_TRON,
      chainId: TRON,
      claimed: true,
    });
  });

  it('refuse an EVM chain for a Tron wallet', async () => {
    const payee = await tronSession();
    const res = await writesNothing(() =>
      create(payee, { tokenAddress: USDC_BASE, chainId: BASE }),
    );
    expect(validationErrors(res)).toEqual([
      {
        field: 'chainId',
        message: 'is an EVM network; sign in with an EVM wallet to receive on it',
      },
    ]);
  });
});

describe('PUT /v1/payee-destination', () => {
  it('answers 404 when the wallet has no active destination', async () => {
    const payee = await evmSession();
    const res = await writesNothing(() =>
      change(payee, { tokenAddress: USDC_BASE, chainId: BASE }),
    );
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'No active payee destination',
      code: 'no_active_destination',
    });
    expect((await getOwn(payee)).json()).toBeNull();
  });

  it('answers 404 after the active destination was deactivated', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    expect((await deactivate(payee, first.destinationId)).statusCode).toBe(200);
    const res = await writesNothing(() => change(payee, { tokenAddress: DAI_BASE, chainId: BASE }));
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe('No active payee destination');
  });

  it('moves the active destination to another token and keeps the policy when none is sent', async () => {
    const payee = await evmSession();
    const first = await created(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: {
        mode: 'kyt_all_wallets',
        screeningProvider: 'hypernative',
        hideUntilApproved: true,
      },
    });
    const res = await change(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(res.statusCode, res.body).toBe(200);
    const moved = res.json();
    expect(moved).toMatchObject({
      tokenAddress: DAI_BASE,
      accessPolicy: KYT_POLICY,
      active: true,
      claimed: true,
    });
    expect(moved.id).not.toBe(first.id);
    expect((await lookup(payee, first.destinationId)).json().active).toBe(false);
    expect((await getOwn(payee)).json()).toEqual(moved);
  });

  it('replaces the policy when one is sent, on the same destination', async () => {
    const payee = await evmSession();
    const first = await created(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: { mode: 'kyt_all_wallets', screeningProvider: 'hypernative' },
    });
    const res = await change(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: { mode: 'off', hidePayeeAddress: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: first.id,
      accessPolicy: { ...DEFAULT_POLICY, hidePayeeAddress: true },
    });
  });

  it('applies the access policy rules and changes nothing when they fail', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const res = await writesNothing(() =>
      change(payee, {
        tokenAddress: DAI_BASE,
        chainId: BASE,
        accessPolicy: { mode: 'kyt_all_wallets' },
      }),
    );
    expect(validationErrors(res)).toEqual([
      {
        field: 'accessPolicy.screeningProvider',
        message: 'is required when mode is kyt_all_wallets',
      },
    ]);
    expect((await getOwn(payee)).json()).toEqual(first);
  });

  it('refuses an unknown chain id', async () => {
    const payee = await evmSession();
    await created(payee);
    const res = await writesNothing(() =>
      change(payee, { tokenAddress: USDC_BASE, chainId: 999999 }),
    );
    expect(validationErrors(res).map((e) => e.field)).toEqual(['chainId']);
  });
});

describe('GET /v1/payee-destination', () => {
  it('answers null for a wallet without an active destination', async () => {
    const payee = await evmSession();
    const res = await getOwn(payee);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('null');
  });
});

describe('a session without a wallet', () => {
  it.each(['POST', 'PUT', 'GET'] as const)(
    'gets 400 A wallet session is required on %s',
    async (method) => {
      const user = await emailSession();
      const res = await writesNothing(() =>
        t.app.inject({
          method,
          url: '/v1/payee-destination',
          headers: user.headers,
          ...(method !== 'GET' && { payload: { tokenAddress: USDC_BASE, chainId: BASE } }),
        }),
      );
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ statusCode: 400, error: 'Bad Request', ...WALLET_REQUIRED });
    },
  );

  it('may look up and deactivate its account’s destinations (made with its API key on /v2)', async () => {
    const user = await emailSession();
    const { apiKey } = await issueApiKey(t.db, user.accountId, 'shop');
    const owner = privateKeyToAccount(freshKey());
    const added = await addViaV2(owner, apiKey, USDC_BASE);
    const found = await lookup(user, added.destinationId);
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json()).toMatchObject({
      id: added.id,
      walletAddress: owner.address,
      active: true,
    });
    expect((await deactivate(user, added.destinationId)).statusCode).toBe(200);
    const after = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination?walletAddress=${owner.address}`,
      headers: { 'x-api-key': apiKey },
    });
    expect(after.json()).toBeNull();
  });
});

describe('credentials', () => {
  it('answers 401 without a session', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/payee-destination' });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('missing_credentials');
  });

  it('answers 401 for an unknown session token', async () => {
    const res = await getOwn({
      headers: { authorization: 'Bearer nope' },
      accountId: '',
      address: '',
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('invalid_session');
  });

  it('answers 403 for an API key, even the wallet account’s own', async () => {
    const payee = await evmSession();
    const { apiKey } = await issueApiKey(t.db, payee.accountId);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/payee-destination',
      headers: { 'x-api-key': apiKey },
      payload: { tokenAddress: USDC_BASE, chainId: BASE },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('credential_not_accepted');
  });
});

describe('GET /v1/payee-destination/payout-lookup', () => {
  it('finds a recipient’s active destination from another account’s session, any case', async () => {
    const recipient = await evmSession();
    const destination = await created(recipient);
    const payer = await evmSession();
    for (const spelling of [recipient.address, recipient.address.toLowerCase()]) {
      const res = await payoutLookup(payer, spelling);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        destinationId: destination.destinationId,
        walletAddress: recipient.address,
        tokenAddress: USDC_BASE,
        chainId: BASE,
        claimed: true,
      });
    }
    // A payer who signed in by e-mail may ask too.
    const emailPayer = await emailSession();
    expect((await payoutLookup(emailPayer, recipient.address)).json()).toMatchObject({
      destinationId: destination.destinationId,
    });
  });

  it('answers null for a wallet without an active destination', async () => {
    const recipient = await evmSession();
    const payer = await evmSession();
    expect((await payoutLookup(payer, recipient.address)).body).toBe('null');
    const destination = await created(recipient);
    expect((await deactivate(recipient, destination.destinationId)).statusCode).toBe(200);
    const res = await payoutLookup(payer, recipient.address);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('null');
  });

  it('prefers the destination the wallet set itself over one set in a merchant’s account', async () => {
    const recipient = await evmSession();
    const own = await created(recipient);
    const merchant = await createTenant(t.db, 'Merchant');
    const target = resolveTarget(t.chains, {
      walletAddress: recipient.address,
      chainId: BASE,
      tokenAddress: DAI_BASE,
    });
    const theirs = await activateDestination(t.db, t.clock, merchant.accountId, target);
    const payer = await evmSession();
    expect((await payoutLookup(payer, recipient.address)).json().destinationId).toBe(
      own.destinationId,
    );
    // Once the wallet's own ends, the merchant's (which the wallet also signed for) answers.
    await deactivate(recipient, own.destinationId);
    expect((await payoutLookup(payer, recipient.address)).json().destinationId).toBe(
      theirs.destinationId,
    );
    await deactivateDestination(t.db, t.clock, theirs);
    expect((await payoutLookup(payer, recipient.address)).json()).toBeNull();
  });

  it('refuses a malformed wallet address', async () => {
    const payer = await evmSession();
    expect(validationErrors(await payoutLookup(payer, '0x1234'))).toEqual([
      {
        field: 'walletAddress',
        message: 'must be an EVM address (0x followed by 40 hex digits) or a Tron address (T…)',
      },
    ]);
  });

  it('requires walletAddress', async () => {
    const payer = await evmSession();
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/payee-destination/payout-lookup',
      headers: payer.headers,
    });
    expect(validationErrors(res)).toEqual([{ field: 'walletAddress', message: 'is required' }]);
  });
});

describe('GET /v1/payee-destination/lookup', () => {
  it('returns a destination of the account, active or not', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const found = await lookup(payee, first.destinationId);
    expect(found.statusCode).toBe(200);
    expect(found.json()).toEqual(first);
    await created(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect((await lookup(payee, first.destinationId)).json()).toEqual({ ...first, active: false });
  });

  it('accepts the id with a lower-case wallet', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const spelled = first.destinationId.replace(payee.address, payee.address.toLowerCase());
    expect((await lookup(payee, spelled)).json().id).toBe(first.id);
  });

  it('answers 404 to another account’s session', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const other = await evmSession();
    const res = await lookup(other, first.destinationId);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'Payee destination not found',
      code: 'destination_not_found',
    });
  });

  it.each([
    ['garbage', 'not-a-destination'],
    ['a wrong checksum', `${USDC_BASE}@eip155:8453#00000000:${USDC_BASE}`],
  ])('answers 400 Invalid destination ID format for %s', async (_case, id) => {
    const payee = await evmSession();
    const res = await lookup(payee, id);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'Invalid destination ID format',
      code: 'invalid_destination_id',
    });
  });

  it('requires destinationId', async () => {
    const payee = await evmSession();
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/payee-destination/lookup',
      headers: payee.headers,
    });
    expect(validationErrors(res)).toEqual([{ field: 'destinationId', message: 'is required' }]);
  });
});

describe('PATCH /v1/payee-destination/deactivate', () => {
  it('deactivates and keeps the record; again is still a success', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const res = await deactivate(payee, first.destinationId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Payee destination deactivated' });
    expect((await getOwn(payee)).json()).toBeNull();
    expect((await lookup(payee, first.destinationId)).json()).toEqual({ ...first, active: false });
    expect((await deactivate(payee, first.destinationId)).json()).toEqual({
      success: true,
      message: 'Payee destination deactivated',
    });
    // Creating it again reactivates the same record.
    expect(await created(payee)).toMatchObject({ id: first.id, active: true });
  });

  it('answers 404 to another account’s session and leaves the destination active', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const other = await evmSession();
    const res = await writesNothing(() => deactivate(other, first.destinationId));
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({
      message: 'Payee destination not found',
      code: 'destination_not_found',
    });
    expect((await getOwn(payee)).json()).toMatchObject({ id: first.id, active: true });
  });

  it('answers 400 for a malformed id and for a body without one', async () => {
    const payee = await evmSession();
    const malformed = await writesNothing(() => deactivate(payee, 'base:0x1:0x2'));
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().message).toBe('Invalid destination ID format');
    const missing = await t.app.inject({
      method: 'PATCH',
      url: '/v1/payee-destination/deactivate',
      headers: payee.headers,
      payload: {},
    });
    expect(validationErrors(missing)).toEqual([{ field: 'destinationId', message: 'is required' }]);
  });
});

describe('one model with /v2/payee-destination', () => {
  it('a destination created here is found on /v2 with the wallet account’s API key', async () => {
    const payee = await evmSession();
    const mine = await created(payee);
    const { apiKey } = await issueApiKey(t.db, payee.accountId, 'dashboard');
    const headers = { 'x-api-key': apiKey };
    const active = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination?walletAddress=${payee.address}`,
      headers,
    });
    expect(active.statusCode, active.body).toBe(200);
    expect(active.json()).toEqual({
      id: mine.id,
      destinationId: mine.destinationId,
      walletAddress: mine.walletAddress,
      tokenAddress: mine.tokenAddress,
      chainId: mine.chainId,
      network: 'base',
      active: true,
      binaryInteropAddress: mine.binaryInteropAddress,
      humanReadableInteropAddress: mine.humanReadableInteropAddress,
      createdAt: mine.createdAt,
    });
    const one = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination/${encodeURIComponent(mine.destinationId)}`,
      headers,
    });
    expect(one.json().id).toBe(mine.id);

    // Another account's API key does not see it.
    const stranger = await createTenant(t.db, 'Stranger');
    const hidden = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination?walletAddress=${payee.address}`,
      headers: { 'x-api-key': stranger.apiKey },
    });
    expect(hidden.json()).toBeNull();

    // Deactivated here, gone on /v2.
    await deactivate(payee, mine.destinationId);
    const after = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination?walletAddress=${payee.address}`,
      headers,
    });
    expect(after.json()).toBeNull();
  });

  it('a destination added on /v2 is the wallet’s here, and changing it here ends it', async () => {
    const payee = await evmSession();
    const { apiKey } = await issueApiKey(t.db, payee.accountId);
    const added = await addViaV2(payee.account, apiKey, USDC_BASE);
    expect((await getOwn(payee)).json()).toMatchObject({
      id: added.id,
      destinationId: added.destinationId,
      accessPolicy: DEFAULT_POLICY,
      claimed: true,
      active: true,
    });
    const changed = await change(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(changed.statusCode, changed.body).toBe(200);
    const old = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination/${encodeURIComponent(added.destinationId)}`,
      headers: { 'x-api-key': apiKey },
    });
    expect(old.json()).toMatchObject({ id: added.id, active: false });
  });
});

describe('client IDs bound to the wallet’s destination', () => {
  /** A link and a request made with the client ID, and the destination rows they pay. */
  async function paidWith(clientId: { id: string; clientId: string }, currency: string) {
    const headers = { 'x-client-id': clientId.clientId };
    const link = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers,
      payload: { requests: [{ amount: '5' }] },
    });
    expect(link.statusCode, link.body).toBe(201);
    const request = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers,
      payload: { amount: '10', invoiceCurrency: currency, paymentCurrency: currency },
    });
    expect(request.statusCode, request.body).toBe(201);
    const ids = [...link.json<{ requestIds: string[] }>().requestIds, request.json().requestId];
    const rows = [];
    for (const requestId of ids) {
      const [row] = await t.db
        .select({
          destinationId: requests.destinationId,
          paymentCurrency: requests.paymentCurrency,
          payee: requests.payee,
        })
        .from(requests)
        .where(and(eq(requests.requestId, requestId), eq(requests.clientIdId, clientId.id)));
      rows.push(row);
    }
    return rows;
  }

  it('follow a change made with PUT: links and requests made with them pay the new destination', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const checkout = await boundClientId(payee, first.destinationId);
    expect(await paidWith(checkout, 'USDC-base')).toEqual([
      { destinationId: first.id, paymentCurrency: 'USDC-base', payee: payee.address },
      { destinationId: first.id, paymentCurrency: 'USDC-base', payee: payee.address },
    ]);

    t.clock.advance(1_000);
    const res = await change(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(res.statusCode, res.body).toBe(200);
    const moved = res.json();
    expect(moved.id).not.toBe(first.id);
    expect(await boundTo(payee, checkout.id)).toBe(moved.destinationId);
    const [row] = await t.db.select().from(clientIds).where(eq(clientIds.id, checkout.id));
    expect(row).toMatchObject({ payeeDestinationId: moved.id, updatedAt: t.clock.now() });
    expect(await paidWith(checkout, 'DAI-base')).toEqual([
      { destinationId: moved.id, paymentCurrency: 'DAI-base', payee: payee.address },
      { destinationId: moved.id, paymentCurrency: 'DAI-base', payee: payee.address },
    ]);
  });

  it('follow a change made with POST, and back to a reactivated destination', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const checkout = await boundClientId(payee, first.destinationId);
    const second = await created(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(await boundTo(payee, checkout.id)).toBe(second.destinationId);
    const again = await created(payee);
    expect(again.id).toBe(first.id);
    expect(await boundTo(payee, checkout.id)).toBe(first.destinationId);
    expect((await paidWith(checkout, 'USDC-base')).map((r) => r?.destinationId)).toEqual([
      first.id,
      first.id,
    ]);
  });

  it('follow a destination added on /v2 for the same wallet', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const checkout = await boundClientId(payee, first.destinationId);
    const { apiKey } = await issueApiKey(t.db, payee.accountId);
    const added = await addViaV2(payee.account, apiKey, DAI_BASE);
    expect(await boundTo(payee, checkout.id)).toBe(added.destinationId);
  });

  it('stay on a screened destination rather than follow to one that guards payers less', async () => {
    const payee = await evmSession();
    const screened = { mode: 'kyt_all_wallets', screeningProvider: 'hypernative' };
    const first = await created(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: screened,
    });
    const checkout = await boundClientId(payee, first.destinationId);

    await created(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(await boundTo(payee, checkout.id)).toBe(first.destinationId);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: { 'x-client-id': checkout.clientId },
      payload: { requests: [{ amount: '5' }] },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('destination_inactive');

    // A new destination screened as well: the binding follows.
    const third = await created(payee, {
      tokenAddress: USDC_BASE,
      chainId: BASE,
      accessPolicy: { ...screened, screeningProvider: 'merklescience' },
    });
    expect(third.id).toBe(first.id);
    const fourth = await created(payee, {
      tokenAddress: DAI_BASE,
      chainId: BASE,
      accessPolicy: { ...screened, hidePayeeAddress: true },
    });
    expect(await boundTo(payee, checkout.id)).toBe(fourth.destinationId);
  });

  it('leave revoked client IDs, explicitly ended destinations and other wallets’ bindings alone', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const revoked = await boundClientId(payee, first.destinationId);
    const revoke = await t.app.inject({
      method: 'DELETE',
      url: `/v1/client-ids/${revoked.id}`,
      headers: payee.headers,
    });
    expect(revoke.statusCode, revoke.body).toBe(200);
    // Another wallet's destination in the same account (added with the account's API key).
    const { apiKey } = await issueApiKey(t.db, payee.accountId);
    const otherWallet = privateKeyToAccount(freshKey());
    const theirs = await addViaV2(otherWallet, apiKey, USDC_BASE);
    const elsewhere = await boundClientId(payee, theirs.destinationId);
    // Deactivated on purpose, then a new one set: the deactivation was the wallet's choice.
    const ended = await boundClientId(payee, first.destinationId);
    expect((await deactivate(payee, first.destinationId)).statusCode).toBe(200);

    await created(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    expect(await boundTo(payee, revoked.id)).toBe(first.destinationId);
    expect(await boundTo(payee, ended.id)).toBe(first.destinationId);
    expect(await boundTo(payee, elsewhere.id)).toBe(theirs.destinationId);
  });
});

describe('one active destination per wallet and account', () => {
  async function activeRows(session: Session) {
    return t.db
      .select({ id: payeeDestinations.id, tokenAddress: payeeDestinations.tokenAddress })
      .from(payeeDestinations)
      .where(
        and(
          eq(payeeDestinations.accountId, session.accountId),
          eq(payeeDestinations.walletAddress, session.address),
          eq(payeeDestinations.active, true),
        ),
      );
  }

  it('holds when creates for different tokens race: every one succeeds, one stays active', async () => {
    const payee = await evmSession();
    // Several at once, so that on Postgres some transactions overlap.
    const answers = await Promise.all(
      [USDC_BASE, DAI_BASE, USDC_BASE, DAI_BASE, USDC_BASE, DAI_BASE].map((tokenAddress) =>
        create(payee, { tokenAddress, chainId: BASE }),
      ),
    );
    expect(answers.map((res) => res.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
    const active = await activeRows(payee);
    expect(active).toHaveLength(1);
    expect(answers.map((res) => res.json().id)).toContain(active[0]?.id);
    expect((await getOwn(payee)).json().id).toBe(active[0]?.id);
  });

  it('holds when a create and a change race, and bound client IDs end on the survivor', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const checkout = await boundClientId(payee, first.destinationId);
    const answers = await Promise.all([
      create(payee, { tokenAddress: DAI_BASE, chainId: BASE }),
      change(payee, { tokenAddress: DAI_BASE, chainId: BASE }),
      change(payee, { tokenAddress: USDC_BASE, chainId: BASE }),
    ]);
    // The wallet always has an active destination here, so every change finds one.
    expect(answers.map((res) => res.statusCode)).toEqual([201, 200, 200]);
    const active = await activeRows(payee);
    expect(active).toHaveLength(1);
    expect(await boundTo(payee, checkout.id)).toBe((await getOwn(payee)).json().destinationId);
  });

  it('never leaves a client ID bound to an ended destination when binding races a change', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const unbound = await t.app.inject({
      method: 'POST',
      url: '/v1/client-ids',
      headers: payee.headers,
      payload: { label: 'Late binding' },
    });
    expect(unbound.statusCode, unbound.body).toBe(201);
    const { id } = unbound.json();
    const [bind, moved] = await Promise.all([
      t.app.inject({
        method: 'PUT',
        url: `/v1/client-ids/${id}`,
        headers: payee.headers,
        payload: { payeeDestinationId: first.destinationId },
      }),
      change(payee, { tokenAddress: DAI_BASE, chainId: BASE }),
    ]);
    expect(moved.statusCode, moved.body).toBe(200);
    // Either order is fine: bound first, then moved along; or refused, the destination ended.
    if (bind.statusCode === 200) {
      expect(await boundTo(payee, id)).toBe(moved.json().destinationId);
    } else {
      expect(validationErrors(bind)).toEqual([
        { field: 'payeeDestinationId', message: 'is inactive; bind an active payee destination' },
      ]);
      expect(await boundTo(payee, id)).toBeNull();
    }
  });

  it('is held by the database as well: a second active row for the wallet is refused', async () => {
    const payee = await evmSession();
    const first = await created(payee);
    const second = await created(payee, { tokenAddress: DAI_BASE, chainId: BASE });
    const error = await t.db
      .update(payeeDestinations)
      .set({ active: true })
      .where(eq(payeeDestinations.id, first.id))
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(String((error as { cause?: unknown } | null)?.cause)).toContain(
      'payee_destinations_one_active_per_wallet',
    );
    expect((await activeRows(payee)).map((r) => r.id)).toEqual([second.id]);
  });
});
