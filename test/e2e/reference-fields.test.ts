import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { createTenant, type Tenant } from '../fixtures.ts';

/**
 * Fields of the reference API whose features are not built yet: accepted with their neutral
 * value (what real clients send on every call), refused with a 400 naming the feature when
 * their value would change the outcome, and nothing is written either way for a refusal.
 */

const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

describe('reference fields of features not built yet', () => {
  let t: TestApp;
  let tenant: Tenant;
  let destinationId: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
    const target = resolveTarget(t.chains, {
      walletAddress: PAYEE,
      chainId: 8453,
      tokenAddress: USDC_BASE,
    });
    destinationId = (await activateDestination(t.db, t.clock, tenant.accountId, target))
      .destinationId;
  });
  afterAll(() => t.close());

  const headers = () => ({ 'x-api-key': tenant.apiKey });
  const request = (extra: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: headers(),
      payload: {
        amount: '1',
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
        payee: PAYEE,
        ...extra,
      },
    });
  const link = (accessPolicy: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: headers(),
      payload: { requests: [{ destinationId, amount: '1' }], accessPolicy },
    });
  const count = async (table: 'requests' | 'secure_payments') => {
    const [row] = await queryRows<{ n: number }>(
      t.db,
      sql`select count(*)::int as n from ${sql.identifier(table)}`,
    );
    return row?.n ?? 0;
  };
  const unavailable = (message: string) => ({
    statusCode: 400,
    error: 'Bad Request',
    code: 'feature_unavailable',
    message,
  });

  it('creates a request that says isCryptoToFiatAvailable: false, as real clients send it', async () => {
    const res = await request({ isCryptoToFiatAvailable: false });
    expect(res.statusCode, res.body).toBe(201);
    // The reference's guides call it isCryptoToFiatAllowed: the same field.
    const alias = await request({ isCryptoToFiatAllowed: false });
    expect(alias.statusCode, alias.body).toBe(201);
  });

  it('takes crypto-to-fiat requests in USDC of its networks only, by name', async () => {
    const before = await count('requests');
    for (const extra of [{ isCryptoToFiatAvailable: true }, { isCryptoToFiatAllowed: true }]) {
      const res = await request(extra);
      expect(res.json(), JSON.stringify(extra)).toMatchObject({
        code: 'validation_failed',
        errors: [
          {
            field: 'paymentCurrency',
            message:
              'Crypto-to-fiat payments take USDC on Ethereum, Polygon, Arbitrum One, Sepolia and the sandbox',
          },
        ],
      });
    }
    expect(await count('requests')).toBe(before);
    const sepolia = await request({
      isCryptoToFiatAvailable: true,
      invoiceCurrency: 'USDC-sepolia',
      paymentCurrency: 'USDC-sepolia',
      payee: undefined,
    });
    expect(sepolia.statusCode, sepolia.body).toBe(201);
    // The reference's types still apply: a wrong one is a validation failure.
    const typed = await request({ recurrence: { startDate: 'x', frequency: 'HOURLY' } });
    expect(typed.json().code).toBe('validation_failed');
  });

  it('refuses cross-chain and crypto-to-fiat inputs of a request’s calldata by name', async () => {
    const { requestId } = (await request({})).json();
    const pay = (query: string) =>
      t.app.inject({
        method: 'GET',
        url: `/v2/request/${requestId}/pay?${query}`,
        headers: headers(),
      });
    const wallet = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    expect((await pay(`wallet=${wallet}&chain=ARBITRUM&token=USDC`)).json().code).toBe(
      'crosschain_unavailable',
    );
    // Without an off-ramp provider (OFFRAMP_URL unset), crypto-to-fiat is not available.
    expect((await pay('clientUserId=u1&paymentDetailsId=p1')).json()).toEqual(
      unavailable(
        'Crypto-to-fiat payments (clientUserId, paymentDetailsId): not available on this server yet',
      ),
    );
    expect((await pay('chain=SOLANA&token=USDC')).json()).toMatchObject({
      code: 'validation_failed',
      errors: [
        {
          field: 'chain',
          message: 'must be one of BASE, OPTIMISM, ARBITRUM, ETHEREUM, SANDBOX, SANDBOX_B',
        },
      ],
    });
    expect((await pay('chain=base&token=usdt')).json().errors).toEqual([
      {
        field: 'chain',
        message: 'must be one of BASE, OPTIMISM, ARBITRUM, ETHEREUM, SANDBOX, SANDBOX_B',
      },
      { field: 'token', message: 'must be one of USDC, USDT' },
    ]);
    expect((await pay('')).statusCode).toBe(200);
  });

  it('creates a link whose access policy changes nothing', async () => {
    for (const policy of [
      {},
      { mode: 'inherit' },
      {
        mode: 'off',
        screeningProvider: null,
        hideUntilApproved: false,
        hidePayeeAddress: false,
        allowedPayerAddresses: [],
      },
    ]) {
      const res = await link(policy);
      expect(res.statusCode, res.body).toBe(201);
    }
  });

  it('names the feature when a link’s access policy would hide details; screens and restricts', async () => {
    const before = await count('secure_payments');
    for (const policy of [{ hidePayeeAddress: true }, { hideUntilApproved: true }]) {
      const res = await link(policy);
      expect(res.statusCode, JSON.stringify(policy)).toBe(400);
      expect(res.json().code).toBe('feature_unavailable');
      expect(res.json().message).toContain('Hiding link details');
    }
    const provider = await link({ screeningProvider: 'merklescience' });
    expect(provider.json().errors).toEqual([
      {
        field: 'accessPolicy.screeningProvider',
        message: 'must be null or omitted unless mode is kyt_all_wallets',
      },
    ]);
    expect(await count('secure_payments')).toBe(before);
    for (const policy of [
      { mode: 'kyt_all_wallets', screeningProvider: 'hypernative' },
      { allowedPayerAddresses: [PAYEE] },
    ]) {
      const res = await link(policy);
      expect(res.statusCode, res.body).toBe(201);
    }
  });
});
