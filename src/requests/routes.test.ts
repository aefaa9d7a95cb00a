import { eq } from 'drizzle-orm';
import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  parseAbi,
  parseEventLogs,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { type StandIn, sendAll, standIn } from '../../test/chain.ts';
import { createTenant, SHOP_ORIGIN, type Tenant } from '../../test/fixtures.ts';
import { evmToTron } from '../chains/tron-address.ts';
import { requests } from '../db/schema.ts';
import {
  bindDestination,
  deactivateDestination,
  findDestination,
} from '../destinations/destinations.ts';
import { erc20FeeProxyAbi } from '../payments/abis.ts';
import { referenceTopic } from '../payments/references.ts';
import type { EvmTransaction } from '../payments/transactions.ts';

/**
 * The /v2/request routes over HTTP, on a local EVM with the real Request contracts standing in
 * for base: requests are created and read back, and the calldata of /pay is sent from a funded
 * wallet so balances on chain prove who received what.
 */

const erc20 = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function approve(address,uint256) returns (bool)',
]);

let local: StandIn;
let t: TestApp;
let tenantA: Tenant;
let tenantB: Tenant;
let snapshot: Hex;

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

function wallet(index: number): PrivateKeyAccount {
  const found = local.chain.wallets[index];
  if (!found) throw new Error(`no wallet ${index}`);
  return privateKeyToAccount(found.privateKey);
}

type Headers = Record<string, string>;
const apiKey = (tenant: Tenant): Headers => ({ 'x-api-key': tenant.apiKey });
const backendClient = (tenant: Tenant): Headers => ({ 'x-client-id': tenant.backendClientId });

function createRequest(body: object, headers: Headers = apiKey(tenantA)) {
  return t.app.inject({ method: 'POST', url: '/v2/request', headers, payload: body });
}

/** Creates a USDC-base request (unless `body` says otherwise) and returns its ids. */
async function created(
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

function getRequest(requestId: string, headers: Headers = apiKey(tenantA)) {
  return t.app.inject({ method: 'GET', url: `/v2/request/${requestId}`, headers });
}

function list(query: string, headers: Headers) {
  return t.app.inject({ method: 'GET', url: `/v2/request${query}`, headers });
}

function pay(requestId: string, query: Record<string, string> = {}, headers = apiKey(tenantA)) {
  const search = new URLSearchParams(query).toString();
  return t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}/pay${search ? `?${search}` : ''}`,
    headers,
  });
}

interface PayTransaction {
  to: Address;
  data: Hex;
  value: { type: 'BigNumber'; hex: Hex };
}

/** The /pay transactions as a wallet sends them on the stand-in for base. */
function sendable(transactions: PayTransaction[]): EvmTransaction[] {
  return transactions.map((tx) => ({
    to: tx.to,
    data: tx.data,
    value: tx.value.hex,
    chainId: local.chain.chainId,
  }));
}

function usdcBalance(owner: Address): Promise<bigint> {
  return local.chain.client.readContract({
    address: getAddress(local.chain.addresses.usdc),
    abi: erc20,
    functionName: 'balanceOf',
    args: [owner],
  });
}

interface FieldError {
  field: string;
  message: string;
}

/** Asserts a 400 `Validation failed` and returns its field errors. */
function validationErrors(res: {
  statusCode: number;
  body: string;
  json: () => { message?: string; errors?: FieldError[] };
}): FieldError[] {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json().message).toBe('Validation failed');
  return res.json().errors ?? [];
}

describe('POST /v2/request', () => {
  it('creates a request: 201 with a 0x+16-hex payment reference and a 01+64-hex request id', async () => {
    const res = await createRequest({
      amount: '12.5',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: wallet(1).address,
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['paymentReference', 'requestId']);
    expect(body.paymentReference).toMatch(/^0x[0-9a-f]{16}$/);
    expect(body.requestId).toMatch(/^01[0-9a-f]{64}$/);
  });

  it('gives every request its own id and payment reference', async () => {
    const first = await created();
    const second = await created();
    expect(second.requestId).not.toBe(first.requestId);
    expect(second.paymentReference).not.toBe(first.paymentReference);
  });

  it('accepts a client ID, a payer, a reference and customer info', async () => {
    const res = await createRequest(
      {
        amount: '1',
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
        payee: wallet(1).address,
        payer: wallet(2).address.toLowerCase(),
        reference: 'INV-42',
        customerInfo: {
          firstName: 'Ada',
          email: 'ada@example.com',
          address: { city: 'London', country: 'GB' },
        },
      },
      { 'x-client-id': tenantA.browserClientId, origin: SHOP_ORIGIN },
    );
    expect(res.statusCode, res.body).toBe(201);
    const read = (await getRequest(res.json().requestId)).json();
    expect(read).toMatchObject({
      payer: wallet(2).address,
      reference: 'INV-42',
      customerInfo: {
        firstName: 'Ada',
        email: 'ada@example.com',
        address: { city: 'London', country: 'GB' },
      },
    });
  });

  it('refuses an unknown paymentCurrency', async () => {
    const res = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'NOPE-base',
      payee: wallet(1).address,
    });
    expect(res.json()).toMatchObject({ message: 'Validation failed', code: 'validation_failed' });
    expect(validationErrors(res)).toEqual([
      { field: 'paymentCurrency', message: 'is not a supported currency id' },
    ]);
  });

  it('refuses an unknown invoiceCurrency', async () => {
    const res = await createRequest({
      amount: '1',
      invoiceCurrency: 'XYZ',
      paymentCurrency: 'USDC-base',
      payee: wallet(1).address,
    });
    expect(validationErrors(res)).toEqual([
      { field: 'invoiceCurrency', message: 'is not a supported currency id or fiat code' },
    ]);
  });

  it('refuses an invoiceCurrency other than the paymentCurrency (no conversion yet)', async () => {
    for (const invoiceCurrency of ['USD', 'DAI-base', 'USDC-optimism']) {
      const res = await createRequest({
        amount: '1',
        invoiceCurrency,
        paymentCurrency: 'USDC-base',
        payee: wallet(1).address,
      });
      expect(validationErrors(res), invoiceCurrency).toEqual([
        {
          field: 'invoiceCurrency',
          message: 'must equal paymentCurrency: conversion payments are not available yet',
        },
      ]);
    }
  });

  it('refuses a fiat paymentCurrency', async () => {
    const res = await createRequest({
      amount: '1',
      invoiceCurrency: 'USD',
      paymentCurrency: 'USD',
      payee: wallet(1).address,
    });
    expect(validationErrors(res)).toEqual([
      { field: 'paymentCurrency', message: 'is not a supported currency id' },
    ]);
  });

  it('requires a payee when the credential has no bound destination', async () => {
    const body = { amount: '1', invoiceCurrency: 'USDC-base', paymentCurrency: 'USDC-base' };
    for (const headers of [apiKey(tenantA), backendClient(tenantA)]) {
      const res = await createRequest(body, headers);
      expect(validationErrors(res)).toEqual([{ field: 'payee', message: 'is required' }]);
    }
  });

  it('refuses a payee of the wrong chain kind', async () => {
    const tronPayee = evmToTron(wallet(1).address);
    const onBase = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: tronPayee,
    });
    expect(validationErrors(onBase)).toEqual([
      { field: 'payee', message: 'must be an EVM address (0x followed by 40 hex digits)' },
    ]);
    const onTron = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDT-tron',
      paymentCurrency: 'USDT-tron',
      payee: wallet(1).address,
    });
    expect(validationErrors(onTron)).toEqual([
      { field: 'payee', message: 'must be a Tron address (T…)' },
    ]);
    const tron = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDT-tron',
      paymentCurrency: 'USDT-tron',
      payee: tronPayee,
    });
    expect(tron.statusCode, tron.body).toBe(201);
  });

  it('refuses a malformed payee and payer', async () => {
    const payee = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: '0x1234',
    });
    expect(validationErrors(payee)).toEqual([
      { field: 'payee', message: 'must be an EVM address (0x followed by 40 hex digits)' },
    ]);
    const payer = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: wallet(1).address,
      payer: 'nobody',
    });
    expect(validationErrors(payer)).toEqual([
      { field: 'payer', message: 'must be an EVM address (0x followed by 40 hex digits)' },
    ]);
  });

  it.each([
    ['0', 'must be greater than 0'],
    ['0.000000', 'must be greater than 0'],
    ['-1', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    ['1e3', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    [' 1', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    ['01', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    ['1.', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    ['.5', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    ['', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    ['1.0000001', 'must have at most 6 decimal places'],
    [`1${'0'.repeat(72)}`, 'is more than a token contract can move (2^256 - 1 base units)'],
  ])('refuses the USDC amount %j', async (amount, message) => {
    const res = await createRequest({
      amount,
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: wallet(1).address,
    });
    expect(validationErrors(res)).toEqual([{ field: 'amount', message }]);
  });

  it('accepts as many decimals as the token has', async () => {
    const usdc = await created({ amount: '0.000001' });
    expect((await getRequest(usdc.requestId)).json().expectedAmount).toBe('0.000001');
    const dai = await created({
      amount: '1.000000000000000001',
      invoiceCurrency: 'DAI-base',
      paymentCurrency: 'DAI-base',
    });
    expect((await getRequest(dai.requestId)).json().expectedAmount).toBe('1.000000000000000001');
    // Trailing zeros beyond the token's decimals change nothing.
    const padded = await created({ amount: '2.50000000' });
    expect((await getRequest(padded.requestId)).json().expectedAmount).toBe('2.5');
  });

  it('refuses a body without amount and unknown fields', async () => {
    const res = await createRequest({
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: wallet(1).address,
      colour: 'blue',
    });
    const errors = validationErrors(res);
    expect(errors).toContainEqual({ field: 'amount', message: 'is required' });
    expect(errors).toContainEqual({ field: 'colour', message: 'is not allowed' });
  });

  it('refuses unknown fields inside customerInfo', async () => {
    const res = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: wallet(1).address,
      customerInfo: { nickname: 'x' },
    });
    expect(validationErrors(res)).toEqual([
      { field: 'customerInfo.nickname', message: 'is not allowed' },
    ]);
  });

  it('answers 401 without credentials', async () => {
    const res = await createRequest({}, {});
    expect(res.statusCode).toBe(401);
  });
});

describe('POST /v2/request with a client ID bound to a destination', () => {
  /** Registers the wallet's base destination (USDC unless told) through the signed flow. */
  async function destination(
    tenant: Tenant,
    owner: PrivateKeyAccount,
    token: string = local.chain.addresses.usdc,
  ): Promise<string> {
    const signing = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination/signing-data?walletAddress=${owner.address}&action=add&tokenAddress=${token}&chainId=8453`,
      headers: apiKey(tenant),
    });
    expect(signing.statusCode, signing.body).toBe(200);
    const { typedData, nonce } = signing.json();
    const signature = await owner.signTypedData({
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
      headers: apiKey(tenant),
      payload: { signature, nonce },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().destinationId;
  }

  it('takes the payee from the bound destination when payee is omitted', async () => {
    const tenant = await createTenant(t.db, 'Bound shop');
    const owner = wallet(3);
    const row = await findDestination(t.db, tenant.accountId, await destination(tenant, owner));
    if (!row) throw new Error('destination not stored');
    await bindDestination(t.db, t.clock, tenant.accountId, tenant.backendClientId, row);

    const body = { amount: '3', invoiceCurrency: 'USDC-base', paymentCurrency: 'USDC-base' };
    const res = await createRequest(body, backendClient(tenant));
    expect(res.statusCode, res.body).toBe(201);
    const read = await getRequest(res.json().requestId, apiKey(tenant));
    expect(read.json()).toMatchObject({ payee: owner.address, expectedAmount: '3' });
    const [stored] = await t.db
      .select({ destinationId: requests.destinationId })
      .from(requests)
      .where(eq(requests.requestId, res.json().requestId));
    expect(stored?.destinationId).toBe(row.id);

    // Naming the bound wallet is fine; naming another is not, and writes nothing.
    const same = await createRequest({ ...body, payee: owner.address }, backendClient(tenant));
    expect(same.statusCode, same.body).toBe(201);
    const before = await t.db.$count(requests);
    const other = await createRequest({ ...body, payee: wallet(0).address }, backendClient(tenant));
    expect(other.statusCode).toBe(403);
    expect(other.json()).toMatchObject({
      message: 'Destination does not match the configured payment destination.',
      code: 'destination_mismatch',
    });
    // Nor can the binding be left behind by billing on another network.
    const elsewhere = await createRequest(
      {
        ...body,
        invoiceCurrency: 'USDC-matic',
        paymentCurrency: 'USDC-matic',
        payee: owner.address,
      },
      backendClient(tenant),
    );
    expect(validationErrors(elsewhere)).toEqual([
      {
        field: 'paymentCurrency',
        message: "must be on base, the network of the client ID's payee destination",
      },
    ]);
    expect(await t.db.$count(requests)).toBe(before);
    // The binding belongs to that client ID only.
    const viaKey = await createRequest(body, apiKey(tenant));
    expect(validationErrors(viaKey)).toEqual([{ field: 'payee', message: 'is required' }]);
    const viaBrowser = await createRequest(body, {
      'x-client-id': tenant.browserClientId,
      origin: SHOP_ORIGIN,
    });
    expect(validationErrors(viaBrowser)).toEqual([{ field: 'payee', message: 'is required' }]);
  });

  it('makes no requests once the bound destination is inactive', async () => {
    const tenant = await createTenant(t.db, 'Moved shop');
    const owner = wallet(3);
    const row = await findDestination(t.db, tenant.accountId, await destination(tenant, owner));
    if (!row) throw new Error('destination not stored');
    await bindDestination(t.db, t.clock, tenant.accountId, tenant.backendClientId, row);
    // The wallet ends its destination (a change of token would move the binding along).
    await deactivateDestination(t.db, t.clock, row);

    const body = { amount: '3', invoiceCurrency: 'USDC-base', paymentCurrency: 'USDC-base' };
    const res = await createRequest(body, backendClient(tenant));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'The payee destination bound to this client ID is inactive',
      code: 'destination_inactive',
    });
    const explicit = await createRequest({ ...body, payee: owner.address }, backendClient(tenant));
    expect(explicit.statusCode).toBe(400);
    expect(explicit.json().code).toBe('destination_inactive');
  });

  it("cannot bind another account's client ID", async () => {
    const tenant = await createTenant(t.db, 'Binder');
    const row = await findDestination(t.db, tenant.accountId, await destination(tenant, wallet(0)));
    if (!row) throw new Error('destination not stored');
    await expect(
      bindDestination(t.db, t.clock, tenant.accountId, tenantB.backendClientId, row),
    ).rejects.toMatchObject({ statusCode: 404, message: 'Client ID not found' });
  });
});

describe('GET /v2/request/{requestId}', () => {
  it('returns the status record with human-readable amounts, unpaid and pending', async () => {
    const { requestId, paymentReference } = await created({
      amount: '12.5',
      payee: wallet(1).address.toLowerCase(),
      reference: 'order-7',
    });
    const res = await getRequest(requestId);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      requestId,
      paymentReference,
      hasBeenPaid: false,
      isListening: true,
      status: 'pending',
      txHash: null,
      payee: wallet(1).address,
      payer: null,
      network: 'base',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      requestAmount: '12.5',
      expectedAmount: '12.5',
      totalAmountPaid: '0',
      excessAmount: null,
      payerAddress: null,
      payerEoaAddress: null,
      reference: 'order-7',
      customerInfo: null,
      payments: [],
      isCryptoToFiatAvailable: false,
      isRecurrenceStopped: false,
      amountInUsd: null,
      conversionRate: null,
      conversionBreakdown: null,
      fees: [],
      createdAt: expect.any(String),
    });
    expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);
  });

  it('finds the request whatever the case of its id', async () => {
    const { requestId } = await created();
    const res = await getRequest(requestId.toUpperCase());
    expect(res.statusCode).toBe(200);
    expect(res.json().requestId).toBe(requestId);
  });

  it("answers 404 for another account's request and for an unknown id", async () => {
    const { requestId } = await created();
    const other = await getRequest(requestId, apiKey(tenantB));
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({ message: 'Request not found', code: 'request_not_found' });
    const unknown = await getRequest(`01${'ab'.repeat(32)}`);
    expect(unknown.statusCode).toBe(404);
  });
});

describe('GET /v2/request', () => {
  let tenant: Tenant;
  /** Oldest first, as created. */
  const ids: string[] = [];

  beforeAll(async () => {
    tenant = await createTenant(t.db, 'Lister');
    for (let i = 0; i < 5; i++) {
      const payee = i % 2 === 0 ? wallet(1).address : wallet(3).address;
      const { requestId } = await created({ amount: `${i + 1}`, payee }, apiKey(tenant));
      ids.push(requestId);
    }
    // Another account's request for the same payee must never show.
    await created({ payee: wallet(1).address }, apiKey(tenantB));
  });

  it("lists only the caller's account, newest first", async () => {
    const res = await list('', apiKey(tenant));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.requests.map((r: { requestId: string }) => r.requestId)).toEqual(
      [...ids].reverse(),
    );
    expect(body.requests[0]).toMatchObject({ expectedAmount: '5', status: 'pending' });
    expect(body.pagination).toEqual({ limit: 20, offset: 0, hasMore: false });
  });

  it('shows a client ID only the requests made with it (it may be a public browser one)', async () => {
    const other = await createTenant(t.db, 'Client lister');
    await created({ amount: '7' }, apiKey(other));
    expect((await list('', backendClient(other))).json().requests).toEqual([]);
    const own = await created({ amount: '8' }, backendClient(other));
    const viaClient = await list('', backendClient(other));
    expect(viaClient.json().requests.map((r: { requestId: string }) => r.requestId)).toEqual([
      own.requestId,
    ]);
    // The account's API key still lists both.
    expect((await list('', apiKey(other))).json().requests).toHaveLength(2);
  });

  it('narrows to one payee wallet, in any case', async () => {
    const expected = [ids[4], ids[2], ids[0]];
    for (const spelling of [
      wallet(1).address,
      wallet(1).address.toLowerCase(),
      `0x${wallet(1).address.slice(2).toUpperCase()}`,
    ]) {
      const res = await list(`?walletAddress=${spelling}`, apiKey(tenant));
      expect(res.statusCode).toBe(200);
      expect(
        res.json().requests.map((r: { requestId: string }) => r.requestId),
        spelling,
      ).toEqual(expected);
    }
    const none = await list(
      '?walletAddress=0x000000000000000000000000000000000000dEaD',
      apiKey(tenant),
    );
    expect(none.json()).toEqual({
      requests: [],
      pagination: { limit: 20, offset: 0, hasMore: false },
    });
  });

  it('pages with limit and offset and says when there is more', async () => {
    const newestFirst = [...ids].reverse();
    const page = async (limit: number, offset: number) =>
      (await list(`?limit=${limit}&offset=${offset}`, apiKey(tenant))).json();

    const first = await page(2, 0);
    expect(first.requests.map((r: { requestId: string }) => r.requestId)).toEqual(
      newestFirst.slice(0, 2),
    );
    expect(first.pagination).toEqual({ limit: 2, offset: 0, hasMore: true });
    const second = await page(2, 2);
    expect(second.requests.map((r: { requestId: string }) => r.requestId)).toEqual(
      newestFirst.slice(2, 4),
    );
    expect(second.pagination.hasMore).toBe(true);
    const last = await page(2, 4);
    expect(last.requests.map((r: { requestId: string }) => r.requestId)).toEqual(
      newestFirst.slice(4),
    );
    expect(last.pagination).toEqual({ limit: 2, offset: 4, hasMore: false });
    const exact = await page(5, 0);
    expect(exact.requests).toHaveLength(5);
    expect(exact.pagination.hasMore).toBe(false);
    const beyond = await page(2, 10);
    expect(beyond).toEqual({ requests: [], pagination: { limit: 2, offset: 10, hasMore: false } });
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?offset=-1', 'offset'],
    ['?limit=abc', 'limit'],
    ['?page=2', 'page'],
  ])('refuses %s', async (query, field) => {
    const res = await list(query, apiKey(tenant));
    expect(validationErrors(res).map((e) => e.field)).toContain(field);
  });
});

describe('GET /v2/request/{requestId}/pay', () => {
  it('returns an approval and the payment, each value as a BigNumber, without a wallet', async () => {
    const { requestId } = await created({ amount: '3' });
    const res = await pay(requestId);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.transactions).toHaveLength(2);
    for (const tx of body.transactions) {
      expect(Object.keys(tx).sort()).toEqual(['data', 'to', 'value']);
      expect(tx.value).toEqual({ type: 'BigNumber', hex: '0x0' });
      expect(tx.to).toBe(getAddress(tx.to));
    }
    expect(body.transactions[0].to).toBe(getAddress(local.chain.addresses.usdc));
    expect(body.transactions[1].to).toBe(getAddress(local.chain.addresses.erc20FeeProxy));
    expect(body.metadata).toMatchObject({
      stepsRequired: 2,
      needsApproval: true,
      approvalTransactionIndex: 0,
      paymentTransactionIndex: 1,
      requiredAmount: '3',
    });
  });

  it('carries the native amount in value.hex', async () => {
    const { requestId } = await created({
      amount: '0.25',
      invoiceCurrency: 'ETH-base',
      paymentCurrency: 'ETH-base',
    });
    const body = (await pay(requestId, { wallet: wallet(2).address })).json();
    expect(body.transactions).toHaveLength(1);
    expect(body.transactions[0].value).toEqual({
      type: 'BigNumber',
      hex: `0x${(250_000_000_000_000_000n).toString(16)}`,
    });
    expect(body.metadata).toMatchObject({ needsApproval: false, approvalTransactionIndex: null });
    const payee = wallet(1).address;
    const before = await local.chain.client.getBalance({ address: payee });
    await sendAll(local.chain, wallet(2), sendable(body.transactions));
    expect((await local.chain.client.getBalance({ address: payee })) - before).toBe(
      250_000_000_000_000_000n,
    );
  });

  it('has approvalTransactionIndex null when the allowance already covers the payment', async () => {
    const payer = wallet(2);
    const { requestId } = await created({ amount: '5' });
    await sendAll(local.chain, payer, [
      {
        to: getAddress(local.chain.addresses.usdc),
        data: encodeFunctionData({
          abi: erc20,
          functionName: 'approve',
          args: [getAddress(local.chain.addresses.erc20FeeProxy), 5_000_000n],
        }),
        value: '0x0',
        chainId: local.chain.chainId,
      },
    ]);
    const res = await pay(requestId, { wallet: payer.address });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.transactions).toHaveLength(1);
    expect(body.metadata).toMatchObject({
      stepsRequired: 1,
      needsApproval: false,
      approvalTransactionIndex: null,
      paymentTransactionIndex: 0,
      hasEnoughAllowance: true,
      hasEnoughBalance: true,
    });
    const before = await usdcBalance(wallet(1).address);
    await sendAll(local.chain, payer, sendable(body.transactions));
    expect((await usdcBalance(wallet(1).address)) - before).toBe(5_000_000n);
  });

  it('pays the whole amount with the request’s payment reference', async () => {
    const payer = wallet(2);
    const { requestId, paymentReference } = await created({ amount: '12.5' });
    const body = (await pay(requestId, { wallet: payer.address })).json();
    expect(body.metadata).toMatchObject({ needsApproval: true, approvalTransactionIndex: 0 });
    const before = await usdcBalance(wallet(1).address);
    const hashes = await sendAll(local.chain, payer, sendable(body.transactions));
    expect((await usdcBalance(wallet(1).address)) - before).toBe(12_500_000n);
    const receipt = await local.chain.client.getTransactionReceipt({
      hash: hashes.at(-1) as Hex,
    });
    const [event] = parseEventLogs({ abi: erc20FeeProxyAbi, logs: receipt.logs });
    expect(event?.topics[1]).toBe(referenceTopic(paymentReference.slice(2)));
    expect(event?.args).toMatchObject({ amount: 12_500_000n, feeAmount: 0n });
  });

  it('pays exactly a partial amount', async () => {
    const payer = wallet(2);
    const payee = wallet(1).address;
    const { requestId } = await created({ amount: '10' });
    const res = await pay(requestId, { wallet: payer.address, amount: '4.2' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().metadata.requiredAmount).toBe('4.2');
    const payeeBefore = await usdcBalance(payee);
    const payerBefore = await usdcBalance(payer.address);
    await sendAll(local.chain, payer, sendable(res.json().transactions));
    expect((await usdcBalance(payee)) - payeeBefore).toBe(4_200_000n);
    expect(payerBefore - (await usdcBalance(payer.address))).toBe(4_200_000n);
  });

  it('refuses an amount above what is due, and malformed amounts', async () => {
    const { requestId } = await created({ amount: '10' });
    expect(validationErrors(await pay(requestId, { amount: '10.000001' }))).toEqual([
      { field: 'amount', message: 'must not exceed what is still due (10)' },
    ]);
    expect(validationErrors(await pay(requestId, { amount: '0' }))).toEqual([
      { field: 'amount', message: 'must be greater than 0' },
    ]);
    expect(validationErrors(await pay(requestId, { amount: '1.0000001' }))).toEqual([
      { field: 'amount', message: 'must have at most 6 decimal places' },
    ]);
    expect((await pay(requestId, { amount: '10' })).statusCode).toBe(200);
  });

  it('adds a 2.5% platform fee on top: the payee gets the amount, the fee address 2.5%', async () => {
    const payer = wallet(2);
    const payee = wallet(1).address;
    const feeAddress = wallet(4).address;
    const { requestId } = await created({ amount: '10' });
    const res = await pay(requestId, {
      wallet: payer.address,
      feePercentage: '2.5',
      feeAddress: feeAddress.toLowerCase(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().metadata).toMatchObject({ requiredAmount: '10.25', needsApproval: true });
    const before = {
      payee: await usdcBalance(payee),
      fee: await usdcBalance(feeAddress),
      payer: await usdcBalance(payer.address),
    };
    const hashes = await sendAll(local.chain, payer, sendable(res.json().transactions));
    expect((await usdcBalance(payee)) - before.payee).toBe(10_000_000n);
    expect((await usdcBalance(feeAddress)) - before.fee).toBe(250_000n);
    expect(before.payer - (await usdcBalance(payer.address))).toBe(10_250_000n);
    const receipt = await local.chain.client.getTransactionReceipt({
      hash: hashes.at(-1) as Hex,
    });
    const [event] = parseEventLogs({ abi: erc20FeeProxyAbi, logs: receipt.logs });
    expect(event?.args).toMatchObject({ amount: 10_000_000n, feeAmount: 250_000n, feeAddress });
  });

  it('takes the fee on a partial amount', async () => {
    const payer = wallet(2);
    const feeAddress = wallet(4).address;
    const { requestId } = await created({ amount: '10' });
    const res = await pay(requestId, {
      wallet: payer.address,
      amount: '4',
      feePercentage: '0.5',
      feeAddress,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().metadata.requiredAmount).toBe('4.02');
    const before = await usdcBalance(feeAddress);
    const payeeBefore = await usdcBalance(wallet(1).address);
    await sendAll(local.chain, payer, sendable(res.json().transactions));
    expect((await usdcBalance(feeAddress)) - before).toBe(20_000n);
    expect((await usdcBalance(wallet(1).address)) - payeeBefore).toBe(4_000_000n);
  });

  it('wants feePercentage and feeAddress together', async () => {
    const { requestId } = await created();
    expect(validationErrors(await pay(requestId, { feePercentage: '2.5' }))).toEqual([
      { field: 'feeAddress', message: 'feePercentage and feeAddress must be sent together' },
    ]);
    expect(validationErrors(await pay(requestId, { feeAddress: wallet(4).address }))).toEqual([
      { field: 'feePercentage', message: 'feePercentage and feeAddress must be sent together' },
    ]);
  });

  it.each(['101', '100.01', '1.234', '-1', '2,5', 'abc', ''])(
    'refuses feePercentage %j',
    async (feePercentage) => {
      const { requestId } = await created();
      const res = await pay(requestId, { feePercentage, feeAddress: wallet(4).address });
      expect(validationErrors(res)).toEqual([
        {
          field: 'feePercentage',
          message: 'must be a number from 0 to 100 with at most 2 decimals',
        },
      ]);
    },
  );

  it('accepts feePercentage 0 and 100', async () => {
    const { requestId } = await created({ amount: '10' });
    const zero = await pay(requestId, { feePercentage: '0', feeAddress: wallet(4).address });
    expect(zero.json().metadata.requiredAmount).toBe('10');
    const all = await pay(requestId, { feePercentage: '100', feeAddress: wallet(4).address });
    expect(all.json().metadata.requiredAmount).toBe('20');
  });

  it('refuses a fee address that is not on the payment network', async () => {
    const { requestId } = await created();
    for (const feeAddress of ['0x1234', evmToTron(wallet(4).address)]) {
      const res = await pay(requestId, { feePercentage: '1', feeAddress });
      expect(validationErrors(res), feeAddress).toEqual([
        { field: 'feeAddress', message: 'must be an EVM address (0x followed by 40 hex digits)' },
      ]);
    }
  });

  it('refuses a wallet that is not an EVM address', async () => {
    const { requestId } = await created();
    expect(validationErrors(await pay(requestId, { wallet: 'nobody' }))).toEqual([
      { field: 'wallet', message: 'must be an EVM address (0x followed by 40 hex digits)' },
    ]);
  });

  it("answers 404 for another account's request", async () => {
    const { requestId } = await created();
    const res = await pay(requestId, {}, apiKey(tenantB));
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe('Request not found');
  });
});
