import { count, eq, inArray } from 'drizzle-orm';
import { custom, decodeFunctionData, getAddress, type Hex, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, SHOP_ORIGIN, type Tenant } from '../../test/fixtures.ts';
import { TRON_CHAIN_ID } from '../chains/networks.ts';
import { requests, securePayments } from '../db/schema.ts';
import { NATIVE_TOKEN_ADDRESS } from '../destinations/destination-id.ts';
import {
  activateDestination,
  bindDestination,
  DESTINATION_MISMATCH_MESSAGE,
  type DestinationRow,
  deactivateDestination,
  INVALID_DESTINATION_ID,
  resolveTarget,
} from '../destinations/destinations.ts';
import { erc20Abi, erc20FeeProxyAbi } from '../payments/abis.ts';
import { referenceBytes } from '../payments/references.ts';
import {
  LINK_LIFETIME_MS,
  REDIRECT_LABEL_MESSAGE,
  REDIRECT_LABEL_WITHOUT_URL_MESSAGE,
  REDIRECT_URL_MESSAGE,
  SAME_NETWORK_MESSAGE,
  TRON_BATCH_MESSAGE,
} from './create.ts';

/**
 * The secure-payment routes over HTTP on the real app: creation rules with their exact
 * statuses and messages, the display and calldata views of a link, and the account's list.
 * Base is served by a transport that records and fails every RPC call, so a test can prove a
 * path never touches the chain (and nothing here can reach a real network).
 */

const PAY_URL = 'https://pay.payreq.test';
const BASE_CHAIN_ID = 8453;
const OPTIMISM_CHAIN_ID = 10;
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const BASE_DAI = '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb';
const OPTIMISM_USDC = '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85';
const BASE_ERC20_FEE_PROXY = '0x1892196E80C4c17ea5100Da765Ab48c1fE2Fb814';
const BASE_BATCH_PAYMENTS = '0x1aF3f22685AcdDc788B3730ed415912d8f654420';
const TRON_WALLET = 'TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF';
const TRON_USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TRON_ERC20_FEE_PROXY = 'TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd';
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const REQUEST_ID = /^01[0-9a-f]{64}$/;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Well-formed, never issued. */
const UNKNOWN_TOKEN = '01KAAAAAAAAAAAAAAAAAAAAAAA';

let t: TestApp;
let shop: Tenant;
let rival: Tenant;
/** Every JSON-RPC method the app sent to base. */
const rpcCalls: string[] = [];

beforeAll(async () => {
  t = await createTestApp({
    env: { PAY_URL },
    transports: {
      base: custom(
        {
          request: async ({ method }: { method: string }) => {
            rpcCalls.push(method);
            throw new Error('base is not reachable in these tests');
          },
        },
        { retryCount: 0 },
      ),
    },
  });
  shop = await createTenant(t.db, 'Shop');
  rival = await createTenant(t.db, 'Rival');
});
afterAll(() => t.close());

type Headers = Record<string, string>;
type Item = { destinationId?: string; amount: string };
type Body = Record<string, unknown>;

const apiKey = (tenant: Tenant): Headers => ({ 'x-api-key': tenant.apiKey });
const backend = (tenant: Tenant): Headers => ({ 'x-client-id': tenant.backendClientId });
const browser = (tenant: Tenant): Headers => ({
  'x-client-id': tenant.browserClientId,
  origin: SHOP_ORIGIN,
});

/** A distinct EVM wallet per n (a wallet has one active destination per account). */
function wallet(n: number): string {
  return getAddress(`0x${(0xa11ce000 + n).toString(16).padStart(40, '0')}`);
}

let nextWallet = 1;
/** A fresh active destination of the tenant, registered the way the signed flow ends. */
async function destination(
  tenant: Tenant,
  target: { walletAddress?: string; chainId?: number; tokenAddress?: string } = {},
): Promise<DestinationRow> {
  return activateDestination(
    t.db,
    t.clock,
    tenant.accountId,
    resolveTarget(t.chains, {
      walletAddress: target.walletAddress ?? wallet(nextWallet++),
      chainId: target.chainId ?? BASE_CHAIN_ID,
      tokenAddress: target.tokenAddress ?? BASE_USDC,
    }),
  );
}

function create(headers: Headers, payload: Body) {
  return t.app.inject({ method: 'POST', url: '/v2/secure-payments', headers, payload });
}

async function createLink(
  tenant: Tenant,
  items: Item[],
  extra: Body = {},
): Promise<{ token: string; requestIds: string[]; securePaymentUrl: string }> {
  const res = await create(apiKey(tenant), { requests: items, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function rowCounts(): Promise<{ links: number; requests: number }> {
  const [links] = await t.db.select({ n: count() }).from(securePayments);
  const [rows] = await t.db.select({ n: count() }).from(requests);
  return { links: links?.n ?? -1, requests: rows?.n ?? -1 };
}

/** Sends the create call, checks status and body, and that nothing reached the database. */
async function expectRefused(
  headers: Headers,
  payload: Body,
  status: number,
  body: Body,
): Promise<Body> {
  const before = await rowCounts();
  const res = await create(headers, payload);
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json()).toMatchObject(body);
  expect(await rowCounts()).toEqual(before);
  return res.json();
}

function badRequest(message: string, code: string): Body {
  return { statusCode: 400, error: 'Bad Request', message, code };
}

function validationFailed(errors: { field: string; message?: unknown }[]): Body {
  return { statusCode: 400, error: 'Bad Request', message: 'Validation failed', errors };
}

function get(url: string, headers: Headers) {
  return t.app.inject({ method: 'GET', url, headers });
}

function pay(token: string, query: Record<string, string>, headers: Headers = apiKey(shop)) {
  const search = new URLSearchParams(query).toString();
  return get(`/v2/secure-payments/${token}/pay${search ? `?${search}` : ''}`, headers);
}

function calldata(token: string, body: Body | undefined, headers: Headers = apiKey(shop)) {
  return t.app.inject({
    method: 'POST',
    url: `/v2/secure-payments/${token}/calldata`,
    headers,
    ...(body !== undefined && { payload: body }),
  });
}

/** GET /pay with the inputs as a query and POST /calldata with them as a body, side by side. */
async function bothCalldata(token: string, inputs: Record<string, string>, headers?: Headers) {
  return [await pay(token, inputs, headers), await calldata(token, inputs, headers)];
}

async function requestRows(requestIds: string[]) {
  return t.db
    .select()
    .from(requests)
    .where(inArray(requests.requestId, requestIds))
    .orderBy(requests.position);
}

async function setLinkStatus(
  token: string,
  values: Partial<typeof securePayments.$inferInsert>,
): Promise<void> {
  await t.db.update(securePayments).set(values).where(eq(securePayments.token, token));
}

describe('POST /v2/secure-payments: creating a link', () => {
  it('answers 201 with the PAY_URL link, the ULID token, one request id per item and feePlan null', async () => {
    const dest = await destination(shop);
    const res = await create(apiKey(shop), {
      requests: [{ destinationId: dest.destinationId, amount: '12.5' }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([
      'feePlan',
      'requestIds',
      'securePaymentUrl',
      'token',
    ]);
    expect(body.token).toMatch(ULID);
    expect(body.securePaymentUrl).toBe(`${PAY_URL}/?token=${body.token}`);
    expect(body.feePlan).toBeNull();
    expect(body.requestIds).toHaveLength(1);
    expect(body.requestIds[0]).toMatch(REQUEST_ID);

    const [link] = await t.db
      .select()
      .from(securePayments)
      .where(eq(securePayments.token, body.token));
    expect(link).toMatchObject({
      accountId: shop.accountId,
      network: 'base',
      status: 'pending',
      payout: false,
    });
    expect(link?.expiresAt.getTime()).toBe(t.clock.now().getTime() + LINK_LIFETIME_MS);
    const [row] = await requestRows(body.requestIds);
    expect(row).toMatchObject({
      securePaymentId: link?.id,
      accountId: shop.accountId,
      network: 'base',
      paymentCurrency: 'USDC-base',
      invoiceCurrency: 'USDC-base',
      expectedAmount: 12_500_000n,
      payee: dest.walletAddress,
      destinationId: dest.id,
      position: 0,
    });
  });

  it('creates a batch on one EVM network, keeping item order and each token’s decimals', async () => {
    const usdc = await destination(shop);
    const dai = await destination(shop, { tokenAddress: BASE_DAI });
    const eth = await destination(shop, { tokenAddress: NATIVE_TOKEN_ADDRESS });
    const link = await createLink(shop, [
      { destinationId: usdc.destinationId, amount: '10' },
      { destinationId: dai.destinationId, amount: '2.000000000000000001' },
      { destinationId: eth.destinationId, amount: '0.1' },
    ]);
    expect(link.requestIds).toHaveLength(3);
    expect(new Set(link.requestIds).size).toBe(3);
    const rows = await requestRows(link.requestIds);
    expect(rows.map((r) => [r.requestId, r.position, r.paymentCurrency, r.expectedAmount])).toEqual(
      [
        [link.requestIds[0], 0, 'USDC-base', 10_000_000n],
        [link.requestIds[1], 1, 'DAI-base', 2_000_000_000_000_000_001n],
        [link.requestIds[2], 2, 'ETH-base', 100_000_000_000_000_000n],
      ],
    );
  });

  it('works with a browser client ID from its allowed origin and with a backend client ID', async () => {
    const dest = await destination(shop);
    for (const headers of [browser(shop), backend(shop)]) {
      const res = await create(headers, {
        requests: [{ destinationId: dest.destinationId, amount: '1' }],
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  });

  it('accepts feePercentage and feeAddress and ignores them: no fee in amounts or calldata', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '100' }], {
      feePercentage: '2.5',
      feeAddress: wallet(999),
    });
    const [row] = await requestRows(link.requestIds);
    expect(row?.expectedAmount).toBe(100_000_000n);
    const res = await pay(link.token, {});
    expect(res.statusCode, res.body).toBe(200);
    const payment = res.json().transactions[1];
    const decoded = decodeFunctionData({ abi: erc20FeeProxyAbi, data: payment.data });
    expect(decoded.args).toEqual([
      BASE_USDC,
      dest.walletAddress,
      100_000_000n,
      referenceBytes(row?.paymentReference ?? ''),
      0n,
      zeroAddress,
    ]);
  });

  it('creates a single-request Tron link', async () => {
    const tron = await destination(shop, {
      walletAddress: TRON_WALLET,
      chainId: TRON_CHAIN_ID,
      tokenAddress: TRON_USDT,
    });
    const link = await createLink(shop, [{ destinationId: tron.destinationId, amount: '7.25' }]);
    const [row] = await requestRows(link.requestIds);
    expect(row).toMatchObject({
      network: 'tron',
      paymentCurrency: 'USDT-tron',
      expectedAmount: 7_250_000n,
      payee: TRON_WALLET,
    });
  });

  it('accepts exactly 200 requests', async () => {
    const dest = await destination(shop);
    const items = Array.from({ length: 200 }, (_, i) => ({
      destinationId: dest.destinationId,
      amount: `${i + 1}`,
    }));
    const link = await createLink(shop, items);
    expect(link.requestIds).toHaveLength(200);
  });
});

describe('POST /v2/secure-payments: redirect rules', () => {
  let destinationId: string;
  beforeAll(async () => {
    destinationId = (await destination(shop)).destinationId;
  });
  const one = () => [{ destinationId, amount: '1' }];

  it.each([
    ['a javascript: URL', 'javascript:alert(1)'],
    ['an ftp URL', 'ftp://shop.example/file'],
    ['a data: URL', 'data:text/html,<b>hi</b>'],
    ['text that is no URL', 'not a url'],
    ['a protocol-relative URL', '//shop.example/back'],
    ['<', 'https://shop.example/<script>'],
    ['>', 'https://shop.example/a>b'],
    ['a double quote', 'https://shop.example/?q="x"'],
    ['a single quote', "https://shop.example/?q='x'"],
    ['a backtick', 'https://shop.example/?q=`x`'],
    ['a space', 'https://shop.example/a b'],
    ['a tab', 'https://shop.example/a\tb'],
    ['a newline', 'https://shop.example/back\n'],
    ['leading whitespace', ' https://shop.example/back'],
  ])('refuses a redirectUrl with %s', async (_case, redirectUrl) => {
    await expectRefused(
      apiKey(shop),
      { requests: one(), redirectUrl },
      400,
      badRequest(REDIRECT_URL_MESSAGE, 'invalid_redirect_url'),
    );
  });

  it('refuses a redirectUrl longer than 2048 characters', async () => {
    const redirectUrl = `https://shop.example/${'a'.repeat(2048)}`;
    await expectRefused(
      apiKey(shop),
      { requests: one(), redirectUrl },
      400,
      validationFailed([
        { field: 'redirectUrl', message: 'must NOT have more than 2048 characters' },
      ]),
    );
  });

  it('refuses an amount longer than 100 characters', async () => {
    await expectRefused(
      apiKey(shop),
      { requests: [{ destinationId, amount: '1'.repeat(101) }] },
      400,
      validationFailed([
        { field: 'requests[0].amount', message: 'must be at most 100 characters' },
      ]),
    );
  });

  it('refuses an unsafe redirectUrl even with a valid label', async () => {
    await expectRefused(
      apiKey(shop),
      { requests: one(), redirectUrl: 'javascript:alert(1)', redirectLabel: 'Back' },
      400,
      badRequest(REDIRECT_URL_MESSAGE, 'invalid_redirect_url'),
    );
  });

  it('accepts http and https redirect URLs', async () => {
    for (const redirectUrl of ['http://localhost:3000/done?order=1', 'https://shop.example/th#x']) {
      const link = await createLink(shop, one(), { redirectUrl });
      const [row] = await t.db
        .select()
        .from(securePayments)
        .where(eq(securePayments.token, link.token));
      expect(row?.redirectUrl).toBe(redirectUrl);
    }
  });

  it('refuses a redirectLabel without a redirectUrl', async () => {
    await expectRefused(
      apiKey(shop),
      { requests: one(), redirectLabel: 'Back to shop' },
      400,
      badRequest(REDIRECT_LABEL_WITHOUT_URL_MESSAGE, 'redirect_label_without_url'),
    );
  });

  it.each([
    ['empty', ''],
    ['256 characters long', 'x'.repeat(256)],
    ['with <', 'a<b'],
    ['with >', 'a>b'],
    ['with &', 'Tom & Jerry'],
    ['with a double quote', 'say "hi"'],
    ['with a single quote', "it's"],
    ['with a backtick', 'a`b'],
  ])('refuses a redirectLabel %s', async (_case, redirectLabel) => {
    await expectRefused(
      apiKey(shop),
      { requests: one(), redirectUrl: 'https://shop.example/back', redirectLabel },
      400,
      badRequest(REDIRECT_LABEL_MESSAGE, 'invalid_redirect_label'),
    );
  });

  it('accepts redirect labels of 1 and 255 characters', async () => {
    for (const redirectLabel of ['x', 'y'.repeat(255), 'Back to the shop!']) {
      const link = await createLink(shop, one(), {
        redirectUrl: 'https://shop.example/back',
        redirectLabel,
      });
      const shown = await get(`/v2/secure-payments/${link.token}`, apiKey(shop));
      expect(shown.json().redirectLabel).toBe(redirectLabel);
    }
  });
});

describe('POST /v2/secure-payments: networks', () => {
  let base: DestinationRow;
  let tron: DestinationRow;
  let optimism: DestinationRow;
  beforeAll(async () => {
    base = await destination(shop);
    tron = await destination(shop, {
      walletAddress: TRON_WALLET,
      chainId: TRON_CHAIN_ID,
      tokenAddress: TRON_USDT,
    });
    optimism = await destination(shop, {
      chainId: OPTIMISM_CHAIN_ID,
      tokenAddress: OPTIMISM_USDC,
    });
  });

  it.each([
    ['two Tron requests', () => [tron, tron]],
    ['a base request then a Tron one', () => [base, tron]],
    ['a Tron request then a base one', () => [tron, base]],
  ])('refuses several requests with a Tron destination: %s', async (_case, pick) => {
    await expectRefused(
      apiKey(shop),
      { requests: pick().map((d) => ({ destinationId: d.destinationId, amount: '1' })) },
      400,
      badRequest(TRON_BATCH_MESSAGE, 'tron_batch_not_supported'),
    );
  });

  it('refuses requests on two EVM networks', async () => {
    await expectRefused(
      apiKey(shop),
      {
        requests: [
          { destinationId: base.destinationId, amount: '1' },
          { destinationId: base.destinationId, amount: '2' },
          { destinationId: optimism.destinationId, amount: '3' },
        ],
      },
      400,
      badRequest(SAME_NETWORK_MESSAGE, 'mixed_networks'),
    );
  });
});

describe('POST /v2/secure-payments: destinations', () => {
  describe('with a client ID bound to a destination', () => {
    let bound: Tenant;
    let boundDestination: DestinationRow;
    let other: DestinationRow;
    beforeAll(async () => {
      bound = await createTenant(t.db, 'Bound shop');
      boundDestination = await destination(bound);
      other = await destination(bound);
      await bindDestination(
        t.db,
        t.clock,
        bound.accountId,
        bound.backendClientId,
        boundDestination,
      );
    });

    it('pays the bound destination for items without destinationId or with the bound one', async () => {
      const res = await create(backend(bound), {
        requests: [
          { amount: '1' },
          { destinationId: boundDestination.destinationId, amount: '2' },
          { amount: '3' },
        ],
      });
      expect(res.statusCode, res.body).toBe(201);
      const rows = await requestRows(res.json().requestIds);
      expect(rows.map((r) => [r.payee, r.destinationId, r.expectedAmount])).toEqual([
        [boundDestination.walletAddress, boundDestination.id, 1_000_000n],
        [boundDestination.walletAddress, boundDestination.id, 2_000_000n],
        [boundDestination.walletAddress, boundDestination.id, 3_000_000n],
      ]);
    });

    it('takes the bound destination written in another case as the same destination', async () => {
      const res = await create(backend(bound), {
        requests: [{ destinationId: boundDestination.destinationId.toLowerCase(), amount: '1' }],
      });
      expect(res.statusCode, res.body).toBe(201);
    });

    it('answers 403 for another valid destination of the account', async () => {
      await expectRefused(
        backend(bound),
        {
          requests: [{ amount: '1' }, { destinationId: other.destinationId, amount: '1' }],
        },
        403,
        {
          statusCode: 403,
          error: 'Forbidden',
          message: DESTINATION_MISMATCH_MESSAGE,
          code: 'destination_mismatch',
        },
      );
    });

    it('answers 400 for a malformed destinationId', async () => {
      await expectRefused(
        backend(bound),
        { requests: [{ destinationId: 'not-a-destination', amount: '1' }] },
        400,
        badRequest(INVALID_DESTINATION_ID, 'invalid_destination_id'),
      );
    });

    it('does not lend the binding to the account’s API key', async () => {
      await expectRefused(
        apiKey(bound),
        { requests: [{ amount: '1' }] },
        400,
        validationFailed([{ field: 'requests[0].destinationId' }]),
      );
    });

    it('answers 400 once the bound destination is inactive', async () => {
      const lapsed = await createTenant(t.db, 'Lapsed shop');
      const row = await destination(lapsed);
      await bindDestination(t.db, t.clock, lapsed.accountId, lapsed.backendClientId, row);
      await deactivateDestination(t.db, t.clock, row);
      await expectRefused(
        backend(lapsed),
        { requests: [{ amount: '1' }] },
        400,
        badRequest(
          'The payee destination bound to this client ID is inactive',
          'destination_inactive',
        ),
      );
    });
  });

  describe('without a bound destination', () => {
    it('answers 400 Validation failed for an item without destinationId', async () => {
      const dest = await destination(shop);
      for (const headers of [apiKey(shop), backend(shop)]) {
        await expectRefused(
          headers,
          { requests: [{ destinationId: dest.destinationId, amount: '1' }, { amount: '1' }] },
          400,
          validationFailed([
            {
              field: 'requests[1].destinationId',
              message: 'is required when the client ID has no bound payee destination',
            },
          ]),
        );
      }
    });

    it.each([
      ['plain text', () => 'not-a-destination'],
      ['a wrong checksum', (d: DestinationRow) => d.destinationId.replace(/#\w{8}/, '#00000000')],
      [
        'a wallet that is no address',
        (d: DestinationRow) => `0x1234@${d.destinationId.split('@')[1]}`,
      ],
      ['no token', (d: DestinationRow) => d.destinationId.split(':0x')[0] ?? ''],
    ])('answers 400 Invalid destination ID format for %s', async (_case, malform) => {
      const dest = await destination(shop);
      await expectRefused(
        apiKey(shop),
        { requests: [{ destinationId: malform(dest), amount: '1' }] },
        400,
        badRequest(INVALID_DESTINATION_ID, 'invalid_destination_id'),
      );
    });

    it('answers 400 for a well-formed destination never registered', async () => {
      const id = resolveTarget(t.chains, {
        walletAddress: wallet(5000),
        chainId: BASE_CHAIN_ID,
        tokenAddress: BASE_USDC,
      }).id.value;
      await expectRefused(
        apiKey(shop),
        { requests: [{ destinationId: id, amount: '1' }] },
        400,
        badRequest(`No active payee destination ${id} in this account`, 'unknown_destination'),
      );
    });

    it('answers 400 for an inactive destination', async () => {
      const dest = await destination(shop);
      await deactivateDestination(t.db, t.clock, dest);
      await expectRefused(
        apiKey(shop),
        { requests: [{ destinationId: dest.destinationId, amount: '1' }] },
        400,
        badRequest(
          `No active payee destination ${dest.destinationId} in this account`,
          'unknown_destination',
        ),
      );
    });

    it('answers 400 for another account’s destination', async () => {
      const theirs = await destination(rival);
      await expectRefused(
        apiKey(shop),
        { requests: [{ destinationId: theirs.destinationId, amount: '1' }] },
        400,
        badRequest(
          `No active payee destination ${theirs.destinationId} in this account`,
          'unknown_destination',
        ),
      );
    });
  });
});

describe('POST /v2/secure-payments: amounts and body', () => {
  let usdc: string;
  let eth: string;
  beforeAll(async () => {
    usdc = (await destination(shop)).destinationId;
    eth = (await destination(shop, { tokenAddress: NATIVE_TOKEN_ADDRESS })).destinationId;
  });

  const NOT_DECIMAL = 'must be a decimal number such as 12.5 (no sign, exponent or spaces)';
  it.each([
    ['zero', '0', 'must be greater than 0'],
    ['zero with decimals', '0.000000', 'must be greater than 0'],
    ['negative', '-1', NOT_DECIMAL],
    ['signed positive', '+1', NOT_DECIMAL],
    ['with an exponent', '1e6', NOT_DECIMAL],
    ['with a leading space', ' 1', NOT_DECIMAL],
    ['with a trailing space', '1 ', NOT_DECIMAL],
    ['empty', '', NOT_DECIMAL],
    ['hexadecimal', '0x10', NOT_DECIMAL],
    ['with a bare dot', '1.', NOT_DECIMAL],
    ['7 decimals on a 6-decimal token', '1.0000001', 'must have at most 6 decimal places'],
  ])('refuses an amount %s (%j) naming requests[i].amount', async (_case, amount, message) => {
    await expectRefused(
      apiKey(shop),
      {
        requests: [
          { destinationId: usdc, amount: '1' },
          { destinationId: usdc, amount },
        ],
      },
      400,
      {
        ...validationFailed([{ field: 'requests[1].amount', message }]),
        code: 'validation_failed',
      },
    );
  });

  it('names every bad amount at once', async () => {
    const body = await expectRefused(
      apiKey(shop),
      {
        requests: [
          { destinationId: usdc, amount: '0' },
          { destinationId: usdc, amount: '2' },
          { destinationId: usdc, amount: '1e3' },
        ],
      },
      400,
      { message: 'Validation failed' },
    );
    expect(body.errors).toEqual([
      { field: 'requests[0].amount', message: 'must be greater than 0' },
      { field: 'requests[2].amount', message: NOT_DECIMAL },
    ]);
  });

  it('takes the decimals from the destination’s token (18 on native ETH)', async () => {
    const link = await createLink(shop, [{ destinationId: eth, amount: '0.000000000000000001' }]);
    const [row] = await requestRows(link.requestIds);
    expect(row?.expectedAmount).toBe(1n);
  });

  it.each([
    ['a top-level field', { currency: 'USDC-base' }, 'currency'],
    ['a field of an item', { requests: [{ amount: '1', payee: wallet(1) }] }, 'requests[0].payee'],
  ])('refuses an unknown field: %s', async (_case, extra, field) => {
    await expectRefused(
      apiKey(shop),
      { requests: [{ destinationId: usdc, amount: '1' }], ...extra },
      400,
      validationFailed([{ field, message: 'is not allowed' }]),
    );
  });

  it('refuses more than 200 requests', async () => {
    const body = await expectRefused(
      apiKey(shop),
      { requests: Array.from({ length: 201 }, () => ({ destinationId: usdc, amount: '1' })) },
      400,
      { message: 'Validation failed' },
    );
    expect(body.errors).toEqual([{ field: 'requests', message: expect.stringContaining('200') }]);
  });

  it.each([
    ['no requests', {}, 'requests'],
    ['an empty requests array', { requests: [] }, 'requests'],
    ['an item without amount', { requests: [{ destinationId: 'x' }] }, 'requests[0].amount'],
    [
      'an empty destinationId',
      { requests: [{ destinationId: '', amount: '1' }] },
      'requests[0].destinationId',
    ],
    ['an empty reference', { requests: [{ amount: '1' }], reference: '' }, 'reference'],
    [
      'a reference over 255 characters',
      { requests: [{ amount: '1' }], reference: 'r'.repeat(256) },
      'reference',
    ],
  ])('refuses %s with 400 Validation failed', async (_case, payload, field) => {
    const body = await expectRefused(apiKey(shop), payload, 400, { message: 'Validation failed' });
    expect(body.errors).toContainEqual(expect.objectContaining({ field }));
  });

  it('requires credentials', async () => {
    const before = await rowCounts();
    const res = await create({}, { requests: [{ destinationId: usdc, amount: '1' }] });
    expect(res.statusCode).toBe(401);
    expect(await rowCounts()).toEqual(before);
  });
});

describe('GET /v2/secure-payments/{token}: the pay page’s view', () => {
  it('shows a single-request link', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '12.50' }], {
      reference: 'order-42',
      payerIdentifier: 'customer-7',
      redirectUrl: 'https://shop.example/thanks',
      redirectLabel: 'Back to the shop',
    });
    const res = await get(`/v2/secure-payments/${link.token}`, apiKey(shop));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      paymentType: 'single',
      status: 'pending',
      token: link.token,
      redirectUrl: 'https://shop.example/thanks',
      redirectLabel: 'Back to the shop',
      branding: null,
      requestIds: link.requestIds,
      network: 'base',
      reference: 'order-42',
      feePlan: null,
      expiresAt: new Date(t.clock.now().getTime() + LINK_LIFETIME_MS).toISOString(),
      payee: dest.walletAddress,
      amount: '12.5',
      paymentCurrency: 'USDC-base',
      isNativeCurrency: false,
      destination: {
        destinationId: dest.destinationId,
        payeeAddress: dest.walletAddress,
        tokenAddress: BASE_USDC,
        walletAddress: dest.walletAddress,
        network: 'base',
        isMasked: false,
      },
    });
  });

  it('shows a batch link index-aligned, with the default redirect label', async () => {
    const usdc = await destination(shop);
    const dai = await destination(shop, { tokenAddress: BASE_DAI });
    const eth = await destination(shop, { tokenAddress: NATIVE_TOKEN_ADDRESS });
    const link = await createLink(shop, [
      { destinationId: usdc.destinationId, amount: '10' },
      { destinationId: dai.destinationId, amount: '0.5' },
      { destinationId: eth.destinationId, amount: '0.25' },
    ]);
    const res = await get(`/v2/secure-payments/${link.token}`, backend(shop));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      paymentType: 'batch',
      status: 'pending',
      token: link.token,
      redirectUrl: null,
      redirectLabel: 'Go Back and Close',
      branding: null,
      requestIds: link.requestIds,
      network: 'base',
      reference: null,
      feePlan: null,
      payees: [usdc.walletAddress, dai.walletAddress, eth.walletAddress],
      amounts: ['10', '0.5', '0.25'],
      paymentCurrencies: ['USDC-base', 'DAI-base', 'ETH-base'],
      isNativeCurrency: [false, false, true],
    });
    for (const single of ['payee', 'amount', 'paymentCurrency', 'destination']) {
      expect(body).not.toHaveProperty(single);
    }
    expect(body.destinations).toEqual([
      {
        destinationId: usdc.destinationId,
        payeeAddress: usdc.walletAddress,
        tokenAddress: BASE_USDC,
        walletAddress: usdc.walletAddress,
        network: 'base',
        isMasked: false,
      },
      {
        destinationId: dai.destinationId,
        payeeAddress: dai.walletAddress,
        tokenAddress: BASE_DAI,
        walletAddress: dai.walletAddress,
        network: 'base',
        isMasked: false,
      },
      expect.objectContaining({
        destinationId: eth.destinationId,
        payeeAddress: eth.walletAddress,
        walletAddress: eth.walletAddress,
        network: 'base',
        isMasked: false,
      }),
    ]);
  });

  it('uses "Go Back and Close" when a single link has a redirectUrl but no label', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }], {
      redirectUrl: 'https://shop.example/back',
    });
    const res = await get(`/v2/secure-payments/${link.token}`, apiKey(shop));
    expect(res.json()).toMatchObject({
      redirectUrl: 'https://shop.example/back',
      redirectLabel: 'Go Back and Close',
    });
  });

  it('finds a link by its token in lower case too', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
    const res = await get(`/v2/secure-payments/${link.token.toLowerCase()}`, apiKey(shop));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().token).toBe(link.token);
  });

  it('answers 404 for an unknown token and for another account’s token', async () => {
    const theirs = await createLink(rival, [
      { destinationId: (await destination(rival)).destinationId, amount: '1' },
    ]);
    for (const [token, headers] of [
      [UNKNOWN_TOKEN, apiKey(shop)],
      [theirs.token, apiKey(shop)],
      [theirs.token, backend(shop)],
    ] as const) {
      const res = await get(`/v2/secure-payments/${token}`, headers);
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toEqual({
        statusCode: 404,
        error: 'Not Found',
        message: 'Secure payment not found',
        code: 'secure_payment_not_found',
      });
    }
    const own = await get(`/v2/secure-payments/${theirs.token}`, apiKey(rival));
    expect(own.statusCode).toBe(200);
  });

  it('answers 400 for a token that is not 26 letters and digits', async () => {
    for (const token of ['short', `${UNKNOWN_TOKEN}0`, '01KAAAAAAAAAAAAAAAAAAAAA-A']) {
      const res = await get(`/v2/secure-payments/${token}`, apiKey(shop));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toBe('Validation failed');
    }
  });
});

describe('links that can no longer be paid: GET, /pay and /calldata alike', () => {
  const expired = {
    statusCode: 403,
    error: 'Forbidden',
    message: 'Secure payment has expired',
    code: 'secure_payment_expired',
  };

  async function allThree(token: string, headers: Headers = apiKey(shop)) {
    return [
      await get(`/v2/secure-payments/${token}`, headers),
      await pay(token, {}, headers),
      await calldata(token, {}, headers),
    ];
  }

  it('stays payable until 7 days after creation, then answers 403 expired', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
    t.clock.advance(7 * DAY_MS - 1);
    for (const res of await allThree(link.token)) expect(res.statusCode, res.body).toBe(200);
    t.clock.advance(2);
    for (const res of await allThree(link.token)) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toEqual(expired);
    }
  });

  it('answers 409 with each request’s state once completed', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [
      { destinationId: dest.destinationId, amount: '1' },
      { destinationId: dest.destinationId, amount: '2' },
    ]);
    await setLinkStatus(link.token, { status: 'completed', completedAt: t.clock.now() });
    await t.db
      .update(requests)
      .set({ status: 'paid' })
      .where(eq(requests.requestId, link.requestIds[0] ?? ''));
    for (const res of await allThree(link.token)) {
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toEqual({
        statusCode: 409,
        error: 'Conflict',
        message: 'Secure payment has already been completed',
        code: 'secure_payment_completed',
        status: 'completed',
        branding: null,
        requestStatuses: [
          { requestId: link.requestIds[0], hasBeenPaid: true, txHash: null },
          { requestId: link.requestIds[1], hasBeenPaid: false, txHash: null },
        ],
      });
    }
  });

  it('answers 409, not 403, for a completed link past its expiry', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
    await setLinkStatus(link.token, { status: 'completed', completedAt: t.clock.now() });
    t.clock.advance(8 * DAY_MS);
    for (const res of await allThree(link.token)) expect(res.statusCode, res.body).toBe(409);
  });

  it.each([
    ['invalidated', 'Secure payment is no longer valid', 'secure_payment_invalidated'],
    [
      'compliance_failed',
      'Secure payment was blocked by compliance screening',
      'secure_payment_compliance_failed',
    ],
  ] as const)('answers 403 for an %s link', async (status, message, code) => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
    await setLinkStatus(link.token, { status });
    for (const res of await allThree(link.token)) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toEqual({ statusCode: 403, error: 'Forbidden', message, code });
    }
  });

  it('answers 404 on /pay and /calldata for an unknown token and another account’s token', async () => {
    const theirs = await createLink(rival, [
      { destinationId: (await destination(rival)).destinationId, amount: '1' },
    ]);
    for (const token of [UNKNOWN_TOKEN, theirs.token]) {
      for (const res of [await pay(token, {}), await calldata(token, {})]) {
        expect(res.statusCode, res.body).toBe(404);
        expect(res.json()).toMatchObject({ message: 'Secure payment not found' });
      }
    }
  });
});

describe('GET /{token}/pay and POST /{token}/calldata: inputs', () => {
  let token: string;
  let tronToken: string;
  beforeAll(async () => {
    const dest = await destination(shop);
    token = (await createLink(shop, [{ destinationId: dest.destinationId, amount: '3' }])).token;
    const tron = await destination(shop, {
      walletAddress: TRON_WALLET,
      chainId: TRON_CHAIN_ID,
      tokenAddress: TRON_USDT,
    });
    tronToken = (await createLink(shop, [{ destinationId: tron.destinationId, amount: '4' }]))
      .token;
  });

  it.each([
    ['chain without token', { chain: 'BASE' }, 'token'],
    ['token without chain', { token: 'USDC' }, 'chain'],
  ])('answers 400 for %s', async (_case, inputs, field) => {
    for (const res of await bothCalldata(token, inputs)) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject(
        validationFailed([{ field, message: 'chain and token must be sent together' }]),
      );
    }
  });

  it('answers 400 crosschain_unavailable for chain and token together', async () => {
    for (const res of await bothCalldata(token, { chain: 'ARBITRUM', token: 'USDC' })) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message:
          'Cross-chain payments are not available on this server yet; pay on the link’s network',
        code: 'crosschain_unavailable',
      });
    }
  });

  it('answers 400 for isSafe=true without a wallet', async () => {
    for (const res of await bothCalldata(token, { isSafe: 'true' })) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject(
        validationFailed([
          { field: 'wallet', message: 'is required with isSafe=true (the multisig address)' },
        ]),
      );
    }
  });

  it('answers 400 for isSafe=true with an eoaWallet', async () => {
    for (const res of await bothCalldata(token, {
      isSafe: 'true',
      wallet: wallet(1),
      eoaWallet: wallet(2),
    })) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject(
        validationFailed([{ field: 'eoaWallet', message: 'cannot be combined with isSafe=true' }]),
      );
    }
  });

  it.each([
    ['wallet', { wallet: 'not-a-wallet' }],
    ['wallet', { wallet: '0x1234' }],
    ['wallet', { wallet: TRON_WALLET }],
    ['eoaWallet', { wallet: wallet(1), eoaWallet: '0xzz' }],
  ])('answers 400 for a malformed %s on an EVM link (%j)', async (field, inputs) => {
    for (const res of await bothCalldata(token, inputs)) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject(
        validationFailed([
          { field, message: 'must be an EVM address (0x followed by 40 hex digits)' },
        ]),
      );
    }
  });

  it('answers 400 for an EVM wallet on a Tron link, and for isSafe on Tron', async () => {
    for (const res of await bothCalldata(tronToken, { wallet: wallet(1) })) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject(
        validationFailed([{ field: 'wallet', message: 'must be a Tron address (T…)' }]),
      );
    }
    for (const res of await bothCalldata(tronToken, { isSafe: 'true', wallet: TRON_WALLET })) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ code: 'safe_not_supported' });
    }
  });

  it.each([
    ['an unknown chain', { chain: 'SOLANA', token: 'USDC' }],
    ['an unknown source token', { chain: 'BASE', token: 'DAI' }],
    ['an isSafe that is not true/false', { isSafe: 'yes' }],
    ['an empty wallet', { wallet: '' }],
    ['an unknown input', { amount: '1' }],
  ])('answers 400 Validation failed for %s', async (_case, inputs) => {
    for (const res of await bothCalldata(token, inputs)) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toBe('Validation failed');
    }
  });
});

describe('GET /{token}/pay and POST /{token}/calldata: the calldata', () => {
  it('returns the same single calldata from both, with no wallet and no chain read', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '3' }]);
    const [row] = await requestRows(link.requestIds);
    const readsBefore = rpcCalls.length;

    const viaQuery = await pay(link.token, {});
    const viaBody = await calldata(link.token, {});
    const viaNoBody = await calldata(link.token, undefined);
    const viaClientId = await calldata(link.token, {}, browser(shop));
    for (const res of [viaQuery, viaBody, viaNoBody, viaClientId])
      expect(res.statusCode, res.body).toBe(200);
    expect(viaBody.json()).toEqual(viaQuery.json());
    expect(viaNoBody.json()).toEqual(viaQuery.json());
    expect(viaClientId.json()).toEqual(viaQuery.json());
    expect(rpcCalls.length).toBe(readsBefore);

    const body = viaQuery.json();
    expect(body).toMatchObject({
      paymentType: 'single',
      feeBundle: null,
      metadata: {
        stepsRequired: 2,
        needsApproval: true,
        approvalTransactionIndex: 0,
        paymentTransactionIndex: 1,
        requiredAmount: '3',
      },
    });
    const [approve, payment] = body.transactions as { to: string; data: Hex; chainId: number }[];
    expect(approve?.to).toBe(BASE_USDC);
    expect(decodeFunctionData({ abi: erc20Abi, data: approve?.data ?? '0x' }).args).toEqual([
      BASE_ERC20_FEE_PROXY,
      3_000_000n,
    ]);
    expect(payment?.to).toBe(BASE_ERC20_FEE_PROXY);
    expect(payment?.chainId).toBe(BASE_CHAIN_ID);
    expect(decodeFunctionData({ abi: erc20FeeProxyAbi, data: payment?.data ?? '0x' }).args).toEqual(
      [
        BASE_USDC,
        dest.walletAddress,
        3_000_000n,
        referenceBytes(row?.paymentReference ?? ''),
        0n,
        zeroAddress,
      ],
    );
  });

  it('returns the same batch calldata from both, with no chain read', async () => {
    const a = await destination(shop);
    const b = await destination(shop);
    const link = await createLink(shop, [
      { destinationId: a.destinationId, amount: '1' },
      { destinationId: b.destinationId, amount: '2' },
    ]);
    const readsBefore = rpcCalls.length;
    const [viaQuery, viaBody] = await bothCalldata(link.token, { isSafe: 'false' });
    expect(viaQuery?.statusCode, viaQuery?.body).toBe(200);
    expect(viaBody?.statusCode, viaBody?.body).toBe(200);
    expect(viaBody?.json()).toEqual(viaQuery?.json());
    expect(rpcCalls.length).toBe(readsBefore);
    expect(viaQuery?.json().batchPaymentTransaction).toMatchObject({
      to: BASE_BATCH_PAYMENTS,
      chainId: BASE_CHAIN_ID,
    });
    expect(viaQuery?.json().ERC20ApprovalTransactions).toHaveLength(1);
  });

  it('returns the same Tron calldata from both', async () => {
    const tron = await destination(shop, {
      walletAddress: TRON_WALLET,
      chainId: TRON_CHAIN_ID,
      tokenAddress: TRON_USDT,
    });
    const link = await createLink(shop, [{ destinationId: tron.destinationId, amount: '4' }]);
    const [viaQuery, viaBody] = await bothCalldata(link.token, {});
    expect(viaQuery?.statusCode, viaQuery?.body).toBe(200);
    expect(viaBody?.json()).toEqual(viaQuery?.json());
    expect(
      viaQuery?.json().transactions.map((tx: { contractAddress: string }) => tx.contractAddress),
    ).toEqual([TRON_USDT, TRON_ERC20_FEE_PROXY]);
  });

  it('reads the chain only when a wallet is given (this RPC fails: 502)', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '3' }]);
    const readsBefore = rpcCalls.length;
    for (const res of await bothCalldata(link.token, { wallet: wallet(77) })) {
      expect(res.statusCode, res.body).toBe(502);
      expect(res.json()).toMatchObject({
        message: 'Network base did not answer; try again shortly',
        code: 'chain_rpc_failed',
      });
    }
    expect(rpcCalls.length).toBeGreaterThan(readsBefore);
  });
});

describe('GET /{token}/pay: what is still due', () => {
  async function paid(requestId: string, amount: bigint, status: 'partially_paid' | 'paid') {
    await t.db
      .update(requests)
      .set({ totalAmountPaid: amount, status })
      .where(eq(requests.requestId, requestId));
  }

  it('asks only for the rest of a partly paid request', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '3' }]);
    await paid(link.requestIds[0] ?? '', 1_250_000n, 'partially_paid');

    const res = await pay(link.token, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().metadata.requiredAmount).toBe('1.75');
    const [approve, payment] = res.json().transactions as { data: Hex }[];
    expect(decodeFunctionData({ abi: erc20Abi, data: approve?.data ?? '0x' }).args[1]).toBe(
      1_750_000n,
    );
    expect(decodeFunctionData({ abi: erc20FeeProxyAbi, data: payment?.data ?? '0x' }).args[2]).toBe(
      1_750_000n,
    );
  });

  it('leaves out a request of a batch paid in full, and pays the rest of the others', async () => {
    const a = await destination(shop);
    const b = await destination(shop);
    const link = await createLink(shop, [
      { destinationId: a.destinationId, amount: '1' },
      { destinationId: b.destinationId, amount: '2' },
    ]);
    const [first, second] = link.requestIds;
    await paid(first ?? '', 1_000_000n, 'paid');
    await paid(second ?? '', 500_000n, 'partially_paid');
    const [row] = await requestRows([second ?? '']);

    const res = await pay(link.token, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      paymentType: 'single',
      metadata: { requiredAmount: '1.5' },
    });
    const payment = (res.json().transactions as { data: Hex }[])[1];
    expect(decodeFunctionData({ abi: erc20FeeProxyAbi, data: payment?.data ?? '0x' }).args).toEqual(
      [
        BASE_USDC,
        b.walletAddress,
        1_500_000n,
        referenceBytes(row?.paymentReference ?? ''),
        0n,
        zeroAddress,
      ],
    );
  });

  it('answers 409 as for a completed link once every request is paid', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '2' }]);
    await paid(link.requestIds[0] ?? '', 2_000_000n, 'paid');
    const res = await pay(link.token, {});
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'secure_payment_completed',
      status: 'completed',
      requestStatuses: [{ requestId: link.requestIds[0], hasBeenPaid: true, txHash: null }],
    });
  });
});

describe('GET /v2/secure-payments: the account’s list', () => {
  let lister: Tenant;
  let dest: DestinationRow;
  /** Oldest first, one minute apart. */
  const made: { token: string; requestIds: string[]; at: Date }[] = [];

  beforeAll(async () => {
    lister = await createTenant(t.db, 'Lister');
    dest = await destination(lister);
    const other = await destination(lister);
    for (let i = 0; i < 5; i++) {
      t.clock.advance(60_000);
      const items =
        i === 2
          ? [
              { destinationId: dest.destinationId, amount: '1' },
              { destinationId: other.destinationId, amount: '2' },
            ]
          : [{ destinationId: dest.destinationId, amount: `${i + 1}` }];
      const link = await createLink(lister, items, { reference: `ref-${i}` });
      made.push({ ...link, at: t.clock.now() });
    }
    // Noise in other accounts: never listed.
    await createLink(rival, [
      { destinationId: (await destination(rival)).destinationId, amount: '1' },
    ]);
  });

  function list(query: Record<string, string> = {}, headers: Headers = apiKey(lister)) {
    const search = new URLSearchParams(query).toString();
    return get(`/v2/secure-payments${search ? `?${search}` : ''}`, headers);
  }
  const tokensOf = (res: { json(): { securePayments: { token: string }[] } }) =>
    res.json().securePayments.map((p) => p.token);
  const newestFirst = () => [...made].reverse().map((m) => m.token);

  it('lists only the caller’s links, newest first, with each link’s summary', async () => {
    const res = await list();
    expect(res.statusCode, res.body).toBe(200);
    expect(tokensOf(res)).toEqual(newestFirst());
    expect(res.json().pagination).toEqual({ limit: 20, nextCursor: null, hasMore: false });
    const batch = made[2];
    expect(res.json().securePayments[2]).toEqual({
      token: batch?.token,
      securePaymentUrl: `${PAY_URL}/?token=${batch?.token}`,
      status: 'pending',
      payout: false,
      paymentType: 'batch',
      requestIds: batch?.requestIds,
      network: 'base',
      reference: 'ref-2',
      redirectUrl: null,
      redirectLabel: 'Go Back and Close',
      createdAt: batch?.at.toISOString(),
      expiresAt: new Date((batch?.at.getTime() ?? 0) + LINK_LIFETIME_MS).toISOString(),
      completedAt: null,
    });
    expect(res.json().securePayments[0].paymentType).toBe('single');

    // A client ID may be a browser's: the list is for server-side credentials only.
    const viaClientId = await list({}, backend(lister));
    expect(viaClientId.statusCode).toBe(403);
    expect(viaClientId.json().code).toBe('credential_not_accepted');
    const rivals = tokensOf(await list({}, apiKey(rival)));
    expect(rivals.length).toBeGreaterThan(0);
    for (const token of rivals) expect(newestFirst()).not.toContain(token);
  });

  it('answers the reference’s lookup object for requestId alone, any request of a batch included', async () => {
    const batch = made[2];
    for (const requestId of batch?.requestIds ?? []) {
      const res = await list({ requestId });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        token: batch?.token,
        securePaymentUrl: `https://pay.payreq.test/?token=${batch?.token}`,
        status: 'pending',
        paymentType: 'batch',
        completedAt: null,
        payerAddress: null,
        payerKytResults: [],
        payeeKytResults: [],
        claimedDestination: null,
        orchestratorId: null,
        feePlan: null,
        executionKind: null,
        identityMode: 'manual_dashboard',
        clientId: null,
        branding: { whitelabelEnabled: false, source: 'request_network' },
        childExecutable: false,
        blockReason: 'not_outgoing',
        requestIds: batch?.requestIds,
      });
    }
    const upper = await list({ requestId: (made[4]?.requestIds[0] ?? '').toUpperCase() });
    expect(upper.json().token).toBe(made[4]?.token);
    const unknown = await list({ requestId: `01${'0'.repeat(64)}` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('secure_payment_not_found');
    const rivalLink = (await list({}, apiKey(rival))).json().securePayments[0];
    const theirs = await list({ requestId: rivalLink.requestIds[0] });
    expect(theirs.statusCode).toBe(404);
  });

  it('filters the list by requestId when another filter comes with it', async () => {
    const batch = made[2];
    const res = await list({ requestId: batch?.requestIds[1] ?? '', limit: '5' });
    expect(tokensOf(res)).toEqual([batch?.token]);
    const unknown = await list({ requestId: `01${'0'.repeat(64)}`, limit: '5' });
    expect(unknown.json()).toEqual({
      securePayments: [],
      pagination: { limit: 5, nextCursor: null, hasMore: false },
    });
  });

  it('filters by payout=true and payout=false', async () => {
    const payoutToken = made[1]?.token ?? '';
    await setLinkStatus(payoutToken, { payout: true });
    try {
      expect(tokensOf(await list({ payout: 'true' }))).toEqual([payoutToken]);
      expect(tokensOf(await list({ payout: 'false' }))).toEqual(
        newestFirst().filter((token) => token !== payoutToken),
      );
      const payoutItem = (await list({ payout: 'true' })).json().securePayments[0];
      expect(payoutItem.payout).toBe(true);
      expect((await list({ payout: 'yes' })).statusCode).toBe(400);
    } finally {
      await setLinkStatus(payoutToken, { payout: false });
    }
  });

  it('filters by createdFrom and createdTo, both inclusive', async () => {
    const at = (i: number) => made[i]?.at.toISOString() ?? '';
    expect(tokensOf(await list({ createdFrom: at(3) }))).toEqual([made[4]?.token, made[3]?.token]);
    expect(tokensOf(await list({ createdTo: at(1) }))).toEqual([made[1]?.token, made[0]?.token]);
    expect(tokensOf(await list({ createdFrom: at(1), createdTo: at(3) }))).toEqual([
      made[3]?.token,
      made[2]?.token,
      made[1]?.token,
    ]);
    const between = new Date((made[2]?.at.getTime() ?? 0) + 1).toISOString();
    expect(tokensOf(await list({ createdFrom: between, createdTo: between }))).toEqual([]);
  });

  it.each([
    ['createdFrom', 'not-a-date'],
    ['createdTo', 'not-a-date'],
    ['createdFrom', '2026-13-45'],
    ['createdTo', ''],
    ['createdFrom', '2026-02-30T00:00:00Z'],
    ['createdFrom', '2026-11-22T10:00:00'],
    ['createdTo', '2026-11-22 10:00:00Z'],
    ['createdTo', 'Sun, 22 Nov 2026 10:00:00 GMT'],
  ])('answers 400 for a %s that is no zoned ISO date-time (%j)', async (field, value) => {
    const res = await list({ [field]: value });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject(
      validationFailed([
        {
          field,
          message: 'must be an ISO 8601 date-time with a time zone, such as 2026-01-31T00:00:00Z',
        },
      ]),
    );
  });

  it('reads an offset as the instant it names', async () => {
    // made[1]'s time, written as a clock one hour ahead of UTC shows it.
    const instant = made[1]?.at.getTime() ?? 0;
    const inParis = `${new Date(instant + 3_600_000).toISOString().slice(0, -1)}+01:00`;
    expect(tokensOf(await list({ createdTo: inParis }))).toEqual([made[1]?.token, made[0]?.token]);
  });

  it('pages with a cursor: no overlap, nothing skipped, nextCursor null on the last page', async () => {
    const seen: string[] = [];
    const pages: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await list({ limit: '2', ...(cursor !== null && { cursor }) });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      seen.push(...tokensOf(res));
      pages.push(body.securePayments.length);
      expect(body.pagination.limit).toBe(2);
      expect(body.pagination.hasMore).toBe(body.pagination.nextCursor !== null);
      cursor = body.pagination.nextCursor;
    } while (cursor !== null);
    expect(pages).toEqual([2, 2, 1]);
    expect(seen).toEqual(newestFirst());
  });

  it('pages without overlap through links created at the same instant', async () => {
    const same = await createTenant(t.db, 'Same instant');
    const target = await destination(same);
    const tokens: string[] = [];
    for (let i = 0; i < 7; i++) {
      tokens.push(
        (await createLink(same, [{ destinationId: target.destinationId, amount: '1' }])).token,
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list({ limit: '3', ...(cursor !== null && { cursor }) }, apiKey(same));
      seen.push(...tokensOf(res));
      cursor = res.json().pagination.nextCursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(7);
    expect(new Set(seen)).toEqual(new Set(tokens));
  });

  it('combines the cursor with filters', async () => {
    const first = await list({ limit: '1', createdTo: made[3]?.at.toISOString() ?? '' });
    expect(tokensOf(first)).toEqual([made[3]?.token]);
    const second = await list({
      limit: '1',
      createdTo: made[3]?.at.toISOString() ?? '',
      cursor: first.json().pagination.nextCursor,
    });
    expect(tokensOf(second)).toEqual([made[2]?.token]);
  });

  it.each([
    ['garbage', 'garbage'],
    ['base64 of no cursor', Buffer.from('hello|world').toString('base64url')],
    [
      'a cursor with a bad id',
      Buffer.from(`${new Date().toISOString()}|1; drop`).toString('base64url'),
    ],
  ])('answers 400 for a cursor that is %s', async (_case, cursor) => {
    const res = await list({ cursor });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'cursor is not one this API returned',
      code: 'invalid_cursor',
    });
  });

  it.each([['0'], ['101'], ['two']])('answers 400 for limit=%s', async (limit) => {
    const res = await list({ limit });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().message).toBe('Validation failed');
  });

  it('shows an expired link as expired', async () => {
    const res = await list({ requestId: made[0]?.requestIds[0] ?? '' });
    expect(res.json().status).toBe('pending');
    t.clock.advance(8 * DAY_MS);
    const later = await list({ requestId: made[0]?.requestIds[0] ?? '' });
    expect(later.json().status).toBe('expired');
    const listed = await list({ requestId: made[0]?.requestIds[0] ?? '', limit: '1' });
    expect(listed.json().securePayments[0].status).toBe('expired');
  });
});
