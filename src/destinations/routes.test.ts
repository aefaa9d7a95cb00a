import type { Hex } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { evmToTron } from '../chains/tron-address.ts';
import { interopChecksum } from './destination-id.ts';

/**
 * The /v2/payee-destination routes over HTTP: a wallet proves it wants to be paid somewhere by
 * signing the EIP-712 typed data of GET /signing-data. Signatures are checked offline, so no
 * chain runs here.
 */

const BASE = 8453;
const TRON = 728126428;
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const DAI_BASE = '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb';
const USDT_TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const NONCE_ERROR = 'Nonce is unknown, expired or already used; request new signing data';
const ID_PATTERN = /^(0x[0-9a-fA-F]{40})@eip155:8453#([0-9A-F]{8}):(0x[0-9a-fA-F]{40})$/;

/** Fixed test keys (0x0101…, 0x0202…); wallet 15 plays the intruder who signs for others. */
const key = (n: number): Hex => `0x${n.toString(16).padStart(2, '0').repeat(32)}`;
const wallets = Array.from({ length: 16 }, (_, i) => privateKeyToAccount(key(i + 1)));
function wallet(n: number): PrivateKeyAccount {
  const found = wallets[n];
  if (!found) throw new Error(`no wallet ${n}`);
  return found;
}

let t: TestApp;
let tenantA: Tenant;
let tenantB: Tenant;

beforeAll(async () => {
  t = await createTestApp();
  tenantA = await createTenant(t.db, 'Shop A');
  tenantB = await createTenant(t.db, 'Shop B');
});
afterAll(() => t.close());

type Credentials = Record<string, string>;
const apiKeyOf = (tenant: Tenant): Credentials => ({ 'x-api-key': tenant.apiKey });
const clientIdOf = (tenant: Tenant): Credentials => ({ 'x-client-id': tenant.backendClientId });

interface SigningQuery {
  walletAddress: string;
  action: 'add' | 'deactivate';
  tokenAddress?: string;
  chainId?: number;
}

function signingData(query: Record<string, string | number>, headers = apiKeyOf(tenantA)) {
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
async function fetchSigningData(
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

interface TypedDataJson {
  domain: { name: string; version: string; chainId: number };
  types: Record<string, { name: string; type: string }[]>;
  primaryType: 'PayeeDestination';
  message: Record<string, unknown> & { chainId: number; expiresAt: number };
}

/** Signs the typed data as a wallet would, uint256 fields as bigints. */
function sign(signer: PrivateKeyAccount, typedData: TypedDataJson): Promise<Hex> {
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
async function signed(
  signer: PrivateKeyAccount,
  query: SigningQuery,
  headers = apiKeyOf(tenantA),
): Promise<{ signature: Hex; nonce: string }> {
  const { typedData, nonce } = await fetchSigningData(query, headers);
  return { signature: await sign(signer, typedData), nonce };
}

function post(body: object, headers = apiKeyOf(tenantA)) {
  return t.app.inject({ method: 'POST', url: '/v2/payee-destination', headers, payload: body });
}

function getOne(destinationId: string, headers = apiKeyOf(tenantA)) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/payee-destination/${encodeURIComponent(destinationId)}`,
    headers,
  });
}

function getActive(walletAddress: string, headers = apiKeyOf(tenantA)) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/payee-destination?walletAddress=${encodeURIComponent(walletAddress)}`,
    headers,
  });
}

function remove(destinationId: string, body: object, headers = apiKeyOf(tenantA)) {
  return t.app.inject({
    method: 'DELETE',
    url: `/v2/payee-destination/${encodeURIComponent(destinationId)}`,
    headers,
    payload: body,
  });
}

/** Adds the wallet's destination through the signed flow and returns the 201 body. */
async function add(
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

describe('GET /v2/payee-destination/signing-data', () => {
  it('returns EIP-712 typed data with a single-use nonce for base USDC on chain 8453', async () => {
    const owner = wallet(0);
    const res = await signingData(
      { walletAddress: owner.address, action: 'add', tokenAddress: USDC_BASE, chainId: BASE },
      clientIdOf(tenantA),
    );
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.nonce).toMatch(/^[0-9a-f]{32}$/);
    const tenMinutesLater = t.clock.now().getTime() + 10 * 60_000;
    expect(body.expiresAt).toBe(new Date(tenMinutesLater).toISOString());
    expect(body.typedData).toEqual({
      domain: { name: 'payreq payee destinations', version: '1', chainId: BASE },
      types: {
        PayeeDestination: [
          { name: 'action', type: 'string' },
          { name: 'walletAddress', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'tokenAddress', type: 'string' },
          { name: 'nonce', type: 'string' },
          { name: 'expiresAt', type: 'uint256' },
        ],
      },
      primaryType: 'PayeeDestination',
      message: {
        action: 'add',
        walletAddress: owner.address,
        chainId: BASE,
        tokenAddress: USDC_BASE,
        nonce: body.nonce,
        expiresAt: tenMinutesLater / 1000,
      },
    });
  });

  it('normalises a lower-case wallet and token to their checksummed form', async () => {
    const owner = wallet(0);
    const res = await signingData({
      walletAddress: owner.address.toLowerCase(),
      action: 'deactivate',
      tokenAddress: USDC_BASE.toLowerCase(),
      chainId: BASE,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().typedData.message).toMatchObject({
      action: 'deactivate',
      walletAddress: owner.address,
      tokenAddress: USDC_BASE,
    });
  });

  it('refuses an unknown chain id', async () => {
    const res = await signingData({
      walletAddress: wallet(0).address,
      action: 'add',
      tokenAddress: USDC_BASE,
      chainId: 999999,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: 'Validation failed', code: 'validation_failed' });
    expect(res.json().errors).toEqual([
      { field: 'chainId', message: expect.stringMatching(/^is not a supported chain \(.*8453/) },
    ]);
  });

  it('refuses a malformed wallet address', async () => {
    const res = await signingData({
      walletAddress: '0x1234',
      action: 'add',
      tokenAddress: USDC_BASE,
      chainId: BASE,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'walletAddress', message: 'must be an EVM address (0x followed by 40 hex digits)' },
    ]);
  });

  it('refuses a token that is not a supported currency on the chain', async () => {
    const res = await signingData({
      walletAddress: wallet(0).address,
      action: 'add',
      tokenAddress: '0x1111111111111111111111111111111111111111',
      chainId: BASE,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'tokenAddress', message: 'is not a supported token on base' },
    ]);
  });

  it('refuses a Tron token on an EVM chain', async () => {
    const res = await signingData({
      walletAddress: wallet(0).address,
      action: 'add',
      tokenAddress: USDT_TRON,
      chainId: BASE,
    });
    expect(res.statusCode).toBe(400);
    // The wallet is fine; the token is what is wrong, and the answer says so.
    expect(res.json().errors).toEqual([
      { field: 'tokenAddress', message: 'must be an EVM address (0x followed by 40 hex digits)' },
    ]);
  });

  it.each([
    ['walletAddress', { action: 'add', tokenAddress: USDC_BASE, chainId: BASE }],
    ['action', { walletAddress: wallet(0).address, tokenAddress: USDC_BASE, chainId: BASE }],
    ['tokenAddress', { walletAddress: wallet(0).address, action: 'add', chainId: BASE }],
    ['chainId', { walletAddress: wallet(0).address, action: 'add', tokenAddress: USDC_BASE }],
  ])('refuses a query without %s', async (missing, query) => {
    const res = await signingData(query);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual({ field: missing, message: 'is required' });
  });

  it('refuses an action other than add or deactivate', async () => {
    const res = await signingData({
      walletAddress: wallet(0).address,
      action: 'delete',
      tokenAddress: USDC_BASE,
      chainId: BASE,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Validation failed');
  });

  it('answers 401 without credentials', async () => {
    const res = await signingData(
      { walletAddress: wallet(0).address, action: 'add', tokenAddress: USDC_BASE, chainId: BASE },
      {},
    );
    expect(res.statusCode).toBe(401);
  });
});

describe('POST /v2/payee-destination', () => {
  it('adds the destination signed by its wallet (201) with its interop addresses', async () => {
    const owner = wallet(1);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    const res = await post(body);
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    const match = ID_PATTERN.exec(created.destinationId);
    expect(match, created.destinationId).not.toBeNull();
    expect(match?.[1]).toBe(owner.address);
    expect(match?.[3]).toBe(USDC_BASE);
    const checksum = match?.[2];
    expect(created).toMatchObject({
      walletAddress: owner.address,
      tokenAddress: USDC_BASE,
      chainId: BASE,
      network: 'base',
      active: true,
      humanReadableInteropAddress: `${owner.address}@eip155:8453#${checksum}`,
      // ERC-7930 v1: version 0001, eip155 0000, 2-byte chain ref 0x2105, 20-byte address.
      binaryInteropAddress: `0x0001000002210514${owner.address.slice(2).toLowerCase()}`,
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);
  });

  it('works with a client ID as well as an API key', async () => {
    const owner = wallet(2);
    const created = await add(owner, USDC_BASE, clientIdOf(tenantA));
    expect(created.active).toBe(true);
    const seen = await getOne(created.destinationId, apiKeyOf(tenantA));
    expect(seen.statusCode).toBe(200);
  });

  it('refuses a signature by another key; the wallet can still use the nonce', async () => {
    const owner = wallet(3);
    const { typedData, nonce } = await fetchSigningData({
      walletAddress: owner.address,
      action: 'add',
    });
    const res = await post({ signature: await sign(wallet(15), typedData), nonce });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'Signature does not match the wallet address',
      code: 'invalid_signature',
    });
    expect((await getActive(owner.address)).json()).toBeNull();
    expect((await post({ signature: await sign(owner, typedData), nonce })).statusCode).toBe(201);
  });

  it('accepts each nonce once', async () => {
    const owner = wallet(4);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    expect((await post(body)).statusCode).toBe(201);
    const again = await post(body);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ message: NONCE_ERROR, code: 'invalid_nonce' });
  });

  it('lets exactly one of two concurrent posts with the same nonce through', async () => {
    const owner = wallet(4);
    const body = await signed(owner, {
      walletAddress: owner.address,
      action: 'add',
      tokenAddress: DAI_BASE,
    });
    const results = await Promise.all([post(body), post(body), post(body)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 400, 400]);
  });

  it('refuses a nonce older than 10 minutes', async () => {
    const owner = wallet(5);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    t.clock.advance(10 * 60_000 + 1_000);
    const res = await post(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: NONCE_ERROR, code: 'invalid_nonce' });
  });

  it('accepts a nonce just before its 10 minutes are up', async () => {
    const owner = wallet(5);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    t.clock.advance(10 * 60_000 - 1_000);
    expect((await post(body)).statusCode).toBe(201);
  });

  it('refuses a nonce issued for deactivate', async () => {
    const owner = wallet(6);
    const body = await signed(owner, { walletAddress: owner.address, action: 'deactivate' });
    const res = await post(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'This nonce was issued for action deactivate',
      code: 'wrong_action',
    });
  });

  it('refuses a nonce issued to another account', async () => {
    const owner = wallet(7);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    const res = await post(body, apiKeyOf(tenantB));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: NONCE_ERROR, code: 'invalid_nonce' });
    // Still tenant A's to use.
    expect((await post(body, apiKeyOf(tenantA))).statusCode).toBe(201);
    expect((await getActive(owner.address, apiKeyOf(tenantB))).json()).toBeNull();
  });

  it.each([
    ['too short', { signature: '0x1234', nonce: 'abc' }, 'signature'],
    ['not hex', { signature: `0x${'zz'.repeat(65)}`, nonce: 'abc' }, 'signature'],
    ['missing', { nonce: 'abc' }, 'signature'],
    ['without a nonce', { signature: `0x${'11'.repeat(65)}` }, 'nonce'],
  ])('refuses a signature body %s as a schema error', async (_case, body, field) => {
    const res = await post(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Validation failed');
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('refuses unknown body fields', async () => {
    const owner = wallet(8);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    const res = await post({ ...body, walletAddress: owner.address });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'walletAddress', message: 'is not allowed' }]);
  });

  it('refuses a well-formed signature that recovers to no one', async () => {
    const owner = wallet(8);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    const res = await post({ ...body, signature: `0x${'00'.repeat(65)}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Signature does not match the wallet address');
  });

  it('adding another token for the same wallet deactivates the first', async () => {
    const owner = wallet(9);
    const first = await add(owner, USDC_BASE);
    const second = await add(owner, DAI_BASE);
    expect(second.destinationId).not.toBe(first.destinationId);
    expect(second.tokenAddress).toBe(DAI_BASE);

    const active = await getActive(owner.address);
    expect(active.statusCode).toBe(200);
    expect(active.json()).toMatchObject({ destinationId: second.destinationId, active: true });
    const old = await getOne(first.destinationId);
    expect(old.statusCode).toBe(200);
    expect(old.json()).toMatchObject({ destinationId: first.destinationId, active: false });

    // Adding the first again reactivates the same record and ends the second.
    const again = await add(owner, USDC_BASE);
    expect(again.id).toBe(first.id);
    expect(again.active).toBe(true);
    expect((await getOne(second.destinationId)).json().active).toBe(false);
  });

  it('adds a Tron destination signed with the EVM key behind the Tron address', async () => {
    const owner = wallet(10);
    const tronWallet = evmToTron(owner.address);
    const body = await signed(owner, {
      walletAddress: tronWallet,
      action: 'add',
      tokenAddress: USDT_TRON,
      chainId: TRON,
    });
    const res = await post(body);
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created.destinationId).toMatch(
      new RegExp(`^${tronWallet}@eip155:728126428#[0-9A-F]{8}:${USDT_TRON}$`),
    );
    expect(created).toMatchObject({
      walletAddress: tronWallet,
      tokenAddress: USDT_TRON,
      chainId: TRON,
      network: 'tron',
      active: true,
    });
    expect(created.binaryInteropAddress).toBe(
      `0x00010000042b6653dc14${owner.address.slice(2).toLowerCase()}`,
    );
    expect((await getActive(tronWallet)).json()).toMatchObject({
      destinationId: created.destinationId,
    });
  });

  it('refuses a Tron destination signed by another key', async () => {
    const owner = wallet(11);
    const body = await signed(wallet(15), {
      walletAddress: evmToTron(owner.address),
      action: 'add',
      tokenAddress: USDT_TRON,
      chainId: TRON,
    });
    const res = await post(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Signature does not match the wallet address');
  });
});

describe('GET /v2/payee-destination?walletAddress=', () => {
  it('finds the active destination whatever the case of an EVM wallet', async () => {
    const owner = wallet(12);
    const created = await add(owner);
    for (const spelling of [owner.address, owner.address.toLowerCase(), upper(owner.address)]) {
      const res = await getActive(spelling);
      expect(res.statusCode, spelling).toBe(200);
      expect(res.json(), spelling).toMatchObject({
        destinationId: created.destinationId,
        walletAddress: owner.address,
      });
    }
  });

  it('returns null for a wallet without a destination', async () => {
    const res = await getActive('0x000000000000000000000000000000000000dEaD');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('null');
  });

  it("does not show another account's destination", async () => {
    const owner = wallet(12);
    const res = await getActive(owner.address, apiKeyOf(tenantB));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toBeNull();
  });

  it('requires walletAddress', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/payee-destination',
      headers: apiKeyOf(tenantA),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'walletAddress', message: 'is required' }]);
  });
});

describe('GET /v2/payee-destination/{destinationId}', () => {
  it('returns the destination by its URL-encoded id', async () => {
    const owner = wallet(13);
    const created = await add(owner);
    const res = await getOne(created.destinationId);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(created);
  });

  it('accepts the id with a lower-case wallet', async () => {
    const owner = wallet(13);
    const created = await add(owner);
    const res = await getOne(
      created.destinationId.replace(owner.address, owner.address.toLowerCase()),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().destinationId).toBe(created.destinationId);
  });

  it("answers 404 for another account's destination", async () => {
    const owner = wallet(13);
    const created = await add(owner);
    const res = await getOne(created.destinationId, apiKeyOf(tenantB));
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ message: 'Payee destination not found' });
  });

  it.each([
    ['garbage', 'not-a-destination'],
    ['a wrong checksum', `${wallet(13).address}@eip155:8453#00000000:${USDC_BASE}`],
    ['a bad wallet', `0x1234@eip155:8453#ABCDEF01:${USDC_BASE}`],
  ])('answers 400 Invalid destination ID format for %s', async (_case, id) => {
    const res = await getOne(id);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'Invalid destination ID format',
      code: 'invalid_destination_id',
    });
  });
});

describe('DELETE /v2/payee-destination/{destinationId}', () => {
  it('deactivates with the wallet’s deactivate signature and keeps the record', async () => {
    const owner = wallet(14);
    const created = await add(owner);
    const body = await signed(owner, { walletAddress: owner.address, action: 'deactivate' });
    const res = await remove(created.destinationId, body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ...created, active: false });

    const kept = await getOne(created.destinationId);
    expect(kept.statusCode).toBe(200);
    expect(kept.json().active).toBe(false);
    expect((await getActive(owner.address)).json()).toBeNull();
    // The nonce is spent.
    const again = await remove(created.destinationId, body);
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toBe(NONCE_ERROR);
  });

  it('refuses a signed message that names another destination', async () => {
    const owner = wallet(14);
    const created = await add(owner, USDC_BASE);
    const body = await signed(owner, {
      walletAddress: owner.address,
      action: 'deactivate',
      tokenAddress: DAI_BASE,
    });
    const res = await remove(created.destinationId, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'The signed message names another destination',
      code: 'signature_mismatch',
    });
    expect((await getOne(created.destinationId)).json().active).toBe(true);
  });

  it('refuses an add nonce', async () => {
    const owner = wallet(14);
    const created = await add(owner, USDC_BASE);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    const res = await remove(created.destinationId, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('This nonce was issued for action add');
  });

  it('refuses a deactivate signature by another key', async () => {
    const owner = wallet(14);
    const created = await add(owner, USDC_BASE);
    const body = await signed(wallet(15), { walletAddress: owner.address, action: 'deactivate' });
    const res = await remove(created.destinationId, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Signature does not match the wallet address');
    expect((await getOne(created.destinationId)).json().active).toBe(true);
  });

  it('answers 400 for a destination this account does not have', async () => {
    const owner = wallet(15);
    const body = await signed(owner, { walletAddress: owner.address, action: 'deactivate' });
    const unknown = `${owner.address}@eip155:8453#${interopChecksum(owner.address, BASE)}:${USDC_BASE}`;
    const res = await remove(unknown, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: 'Payee destination not found' });
  });

  it("answers 400 for another account's destination", async () => {
    const owner = wallet(14);
    const created = await add(owner, USDC_BASE);
    const body = await signed(
      owner,
      { walletAddress: owner.address, action: 'deactivate' },
      apiKeyOf(tenantB),
    );
    const res = await remove(created.destinationId, body, apiKeyOf(tenantB));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Payee destination not found');
    expect((await getOne(created.destinationId)).json().active).toBe(true);
  });

  it('answers 400 Invalid destination ID format for garbage', async () => {
    const owner = wallet(14);
    const body = await signed(owner, { walletAddress: owner.address, action: 'deactivate' });
    const res = await remove('garbage', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Invalid destination ID format');
  });
});

function upper(address: string): string {
  return `0x${address.slice(2).toUpperCase()}`;
}
