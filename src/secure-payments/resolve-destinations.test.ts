import { describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import {
  BASE_CHAIN_ID,
  BASE_DAI,
  backend,
  create,
  destination,
  expectRefused,
  requestRows,
  setupSecurePaymentsApp,
  t,
  wallet,
} from '../../test/secure-payments.ts';
import { bindDestination } from '../destinations/destinations.ts';
import { HOW_TO_REGISTER } from './resolve-destinations.ts';

/**
 * The integration guide's first call, as it is written: `POST /v2/secure-payments` whose item
 * names `payee`, `invoiceCurrency` and `paymentCurrency` and no `destinationId`, made with a
 * backend client ID bound to nothing. The account's one active destination for that payee and
 * token is taken; none or several answer 400 naming the choice to make, writing nothing.
 */

setupSecurePaymentsApp();

/** An item as the guide writes it. */
const guideItem = (payee: string, extra: Record<string, unknown> = {}) => ({
  payee,
  amount: '10',
  invoiceCurrency: 'USDC-base',
  paymentCurrency: 'USDC-base',
  ...extra,
});

let fresh = 0;
async function account(): Promise<Tenant> {
  fresh += 1;
  return createTenant(t.db, `Guide ${fresh}`);
}

describe('POST /v2/secure-payments without destinationId, from payee and currency', () => {
  it('takes the account’s one matching destination (payee in any case, fiat invoices too)', async () => {
    const shop = await account();
    const mine = await destination(shop, { walletAddress: wallet(301) });
    // Other destinations of the account do not get in the way: another wallet, another token.
    await destination(shop, { walletAddress: wallet(302) });
    await destination(shop, { walletAddress: wallet(303), tokenAddress: BASE_DAI });

    const res = await create(backend(shop), {
      requests: [
        guideItem(wallet(301).toLowerCase()),
        guideItem(wallet(301), { invoiceCurrency: 'USD', amount: '5' }),
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const rows = await requestRows(res.json().requestIds);
    expect(rows).toMatchObject([
      {
        payee: wallet(301),
        destinationId: mine.id,
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
        expectedAmount: 10_000_000n,
      },
      { payee: wallet(301), destinationId: mine.id, invoiceCurrency: 'USD', expectedAmount: 500n },
    ]);
    // The same fields make a request on POST /v2/request, which needs no destination.
    const request = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: backend(shop),
      payload: guideItem(wallet(301)),
    });
    expect(request.statusCode, request.body).toBe(201);
  });

  it('answers 400 naming how to register one when none matches, writing nothing', async () => {
    const shop = await account();
    // The payee's destination takes DAI, not USDC.
    await destination(shop, { walletAddress: wallet(311), tokenAddress: BASE_DAI });
    for (const payee of [wallet(311), wallet(312)]) {
      await expectRefused(backend(shop), { requests: [guideItem(payee)] }, 400, {
        code: 'no_matching_destination',
        message: `No active payee destination of this account matches requests[0] (payee ${payee}, USDC-base): ${HOW_TO_REGISTER}`,
        errors: [{ field: 'requests[0].destinationId', message: HOW_TO_REGISTER }],
      });
    }
  });

  it('answers 400 listing the destinationIds to choose from when several match', async () => {
    const shop = await account();
    const first = await destination(shop, { walletAddress: wallet(321) });
    const second = await destination(shop, { walletAddress: wallet(322) });
    // No payee: both of the account's USDC-base destinations would do.
    const { payee: _none, ...withoutPayee } = guideItem(wallet(321));
    const body = await expectRefused(backend(shop), { requests: [withoutPayee] }, 400, {
      code: 'ambiguous_destination',
    });
    const listed = String(body.message);
    expect(listed).toContain(first.destinationId);
    expect(listed).toContain(second.destinationId);
    expect(body.errors).toEqual([
      {
        field: 'requests[0].destinationId',
        message: expect.stringContaining(first.destinationId),
      },
    ]);
    // Naming the payee makes the choice.
    const chosen = await create(backend(shop), { requests: [guideItem(wallet(322))] });
    expect(chosen.statusCode, chosen.body).toBe(201);
    const [row] = await requestRows(chosen.json().requestIds);
    expect(row?.destinationId).toBe(second.id);
  });

  it('resolves for a bound client ID too: its bound destination, or another of the account by payee', async () => {
    const shop = await account();
    const main = await destination(shop, { walletAddress: wallet(341) });
    const other = await destination(shop, { walletAddress: wallet(342) });
    await bindDestination(t.db, t.clock, shop.accountId, shop.backendClientId, main);
    const res = await create(backend(shop), {
      requests: [guideItem(wallet(341)), guideItem(wallet(342)), { amount: '1' }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const rows = await requestRows(res.json().requestIds);
    expect(rows.map((row) => row.destinationId)).toEqual([main.id, other.id, main.id]);
  });

  it('takes a USDT destination for USDT0 where the two are one contract (matic, arbitrum-one)', async () => {
    const shop = await account();
    for (const [network, chainId, usdt] of [
      ['matic', 137, '0xc2132D05D31c914a87C6611C10748AEb04B58e8F'],
      ['arbitrum-one', 42161, '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9'],
    ] as const) {
      const payee = wallet(chainId);
      const mine = await destination(shop, { walletAddress: payee, chainId, tokenAddress: usdt });
      for (const symbol of ['USDT', 'USDT0']) {
        const id = `${symbol}-${network}`;
        const res = await create(backend(shop), {
          requests: [guideItem(payee, { invoiceCurrency: id, paymentCurrency: id })],
        });
        expect(res.statusCode, `${id}: ${res.body}`).toBe(201);
        const [row] = await requestRows(res.json().requestIds);
        // Written in the destination's token, under the id its contract has in the registry.
        expect(row).toMatchObject({ destinationId: mine.id, paymentCurrency: `USDT-${network}` });
      }
    }
  });

  it('still asks for a destinationId when an item names neither payee nor token', async () => {
    const shop = await account();
    await destination(shop, { walletAddress: wallet(331), chainId: BASE_CHAIN_ID });
    const body = await expectRefused(backend(shop), { requests: [{ amount: '1' }] }, 400, {
      message: 'Validation failed',
    });
    expect(body.errors).toEqual([
      { field: 'requests[0].destinationId', message: expect.stringContaining('is required') },
    ]);
  });
});
