import { eq } from 'drizzle-orm';
import { decodeFunctionData, zeroAddress } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  BASE_DAI,
  BASE_USDC,
  backend,
  browser,
  create,
  createLink,
  destination,
  expectRefused,
  PAY_URL,
  pay,
  requestRows,
  rowCounts,
  setupSecurePaymentsApp,
  shop,
  TRON_USDT,
  TRON_WALLET,
  t,
  validationFailed,
  wallet,
} from '../../test/secure-payments.ts';
import { TRON_CHAIN_ID } from '../chains/networks.ts';
import { securePayments } from '../db/schema.ts';
import { NATIVE_TOKEN_ADDRESS } from '../destinations/destination-id.ts';
import { erc20FeeProxyAbi } from '../payments/abis.ts';
import { referenceBytes } from '../payments/references.ts';
import { LINK_LIFETIME_MS } from './insert-link.ts';

/**
 * `POST /v2/secure-payments` over HTTP on the real app: the link it makes, and the amounts and
 * body it refuses with their exact statuses and messages.
 */

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const REQUEST_ID = /^01[0-9a-f]{64}$/;

setupSecurePaymentsApp();

describe('POST /v2/secure-payments: creating a link', () => {
  it('answers 201 with the PAY_URL link, the ULID token, one request id per item and its fee plan', async () => {
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
    // A USDC link has a plan; without paired auth or a protocol fee, one without fees.
    expect(body.feePlan).toEqual({
      version: 1,
      flow: 'get_paid',
      defaultFeeBearer: 'payee',
      grossAmountUsd: '12.5',
      netRecipientAmountUsd: '12.5',
      payerTotalAmountUsd: '12.5',
      totalFeesUsd: '0',
      payeeBorneFeesUsd: '0',
      payerBorneFeesUsd: '0',
      fees: [],
    });
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

  it('ignores unknown fields, at the top and in an item, as the reference does', async () => {
    const res = await create(apiKey(shop), {
      requests: [{ destinationId: usdc, amount: '1', memo: 'x' }],
      currency: 'USDC-base',
    });
    expect(res.statusCode, res.body).toBe(201);
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
