import { zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmToTron } from '../../src/chains/tron-address.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { formatAmount, MAX_BASE_UNITS } from '../../src/payments/amounts.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { createTenant, type Tenant } from '../fixtures.ts';

/**
 * Money is refused at the edge when it would go nowhere or cannot move: the zero address as a
 * payee, payer, fee address or wallet; a mixed-case address whose checksum says it was
 * mistyped; amounts (and totals) beyond what a token contract can move in one call.
 */

const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
/** PAYEE with one letter's case flipped: a typo the EIP-55 checksum catches. */
const MISTYPED = '0x70997970c51812dc3A010C7d01b50e0d17dc79C8';
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const ZERO = 'must not be the zero address';
const CHECKSUM =
  'has an invalid EIP-55 checksum: write the address in all lower case or with its correct checksum';

describe('money safety at the edge', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
  });
  afterAll(() => t.close());

  const headers = () => ({ 'x-api-key': tenant.apiKey });
  const createRequest = (extra: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: headers(),
      payload: {
        amount: '1',
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
        ...extra,
      },
    });
  const errorsOf = (res: { json(): { errors?: unknown } }) => res.json().errors;

  it('refuses the zero address as payee and as payer', async () => {
    expect(errorsOf(await createRequest({ payee: zeroAddress }))).toEqual([
      { field: 'payee', message: ZERO },
    ]);
    expect(errorsOf(await createRequest({ payee: PAYEE, payer: zeroAddress }))).toEqual([
      { field: 'payer', message: ZERO },
    ]);
    expect(
      errorsOf(
        await createRequest({
          payee: evmToTron(zeroAddress),
          invoiceCurrency: 'USDT-tron',
          paymentCurrency: 'USDT-tron',
        }),
      ),
    ).toEqual([{ field: 'payee', message: ZERO }]);
  });

  it('refuses the zero address as fee address and as the paying wallet', async () => {
    const { requestId } = (await createRequest({ payee: PAYEE })).json();
    const pay = (query: string) =>
      t.app.inject({
        method: 'GET',
        url: `/v2/request/${requestId}/pay?${query}`,
        headers: headers(),
      });
    expect(errorsOf(await pay(`feePercentage=1&feeAddress=${zeroAddress}`))).toEqual([
      { field: 'feeAddress', message: ZERO },
    ]);
    expect(errorsOf(await pay(`wallet=${zeroAddress}`))).toEqual([
      { field: 'wallet', message: ZERO },
    ]);
  });

  it('refuses a payee destination for the zero address', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination/signing-data?walletAddress=${zeroAddress}&action=add&tokenAddress=${USDC_BASE}&chainId=8453`,
      headers: headers(),
    });
    expect(res.statusCode).toBe(400);
  });

  it('refuses a mixed-case address with a wrong checksum, and checksums an all-lower-case one', async () => {
    expect(errorsOf(await createRequest({ payee: MISTYPED }))).toEqual([
      { field: 'payee', message: CHECKSUM },
    ]);
    const lower = await createRequest({ payee: PAYEE.toLowerCase() });
    expect(lower.statusCode, lower.body).toBe(201);
    const stored = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${lower.json().requestId}`,
      headers: headers(),
    });
    expect(stored.json().payee).toBe(PAYEE);
  });

  it('takes up to 2^256 - 1 base units and refuses one more, with the documented message', async () => {
    const most = await createRequest({ payee: PAYEE, amount: formatAmount(MAX_BASE_UNITS, 6) });
    expect(most.statusCode, most.body).toBe(201);
    const over = await createRequest({
      payee: PAYEE,
      amount: formatAmount(MAX_BASE_UNITS + 1n, 6),
    });
    expect(errorsOf(over)).toEqual([
      { field: 'amount', message: 'is more than a token contract can move (2^256 - 1 base units)' },
    ]);
    // With a fee on top, the largest amount no longer fits one transfer.
    const pay = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${most.json().requestId}/pay?feePercentage=1&feeAddress=${PAYEE}`,
      headers: headers(),
    });
    expect(pay.statusCode).toBe(400);
    expect(errorsOf(pay)).toEqual([
      {
        field: 'feePercentage',
        message:
          'with the amount, add up to more than a token contract can move in one payment (2^256 - 1 base units)',
      },
    ]);
  });

  it('refuses a batch whose amounts add up past what one approval can carry', async () => {
    const target = resolveTarget(t.chains, {
      walletAddress: PAYEE,
      chainId: 8453,
      tokenAddress: USDC_BASE,
    });
    const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
    const half = formatAmount(MAX_BASE_UNITS / 2n + 1n, 6);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: headers(),
      payload: {
        requests: [
          { destinationId, amount: half },
          { destinationId, amount: half },
        ],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([
      {
        field: 'requests',
        message:
          'add up to more than a token contract can move in one payment (2^256 - 1 base units)',
      },
    ]);
  });
});
