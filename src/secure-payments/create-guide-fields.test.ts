import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../../test/fixtures.ts';
import {
  apiKey,
  backend,
  create,
  destination,
  expectRefused,
  requestRows,
  setupSecurePaymentsApp,
  shop,
  TRON_USDT,
  TRON_WALLET,
  t,
  validationFailed,
  wallet,
} from '../../test/secure-payments.ts';
import { TRON_CHAIN_ID } from '../chains/networks.ts';
import { NATIVE_TOKEN_ADDRESS } from '../destinations/destination-id.ts';
import { bindDestination, type DestinationRow } from '../destinations/destinations.ts';

/**
 * `POST /v2/secure-payments` with the item fields the reference's integration guide sends
 * beside `destinationId` and `amount` (seed-vs-docs §7.4): `payee`, `invoiceCurrency` and
 * `paymentCurrency`. Its API schema does not define them; a client that sends them must still
 * get its link, so they are taken as what the destination already says, and refused when they
 * say otherwise.
 */

setupSecurePaymentsApp();

let dest: DestinationRow;
beforeAll(async () => {
  dest = await destination(shop);
});

/** The item as the integration guide writes it, for `dest`. */
const guideItem = (extra: Record<string, unknown> = {}) => ({
  destinationId: dest.destinationId,
  amount: '12.5',
  payee: dest.walletAddress,
  invoiceCurrency: 'USDC-base',
  paymentCurrency: 'USDC-base',
  ...extra,
});

describe('POST /v2/secure-payments: the integration guide’s item fields', () => {
  it('makes the same link as destinationId and amount alone, with the payee in any case', async () => {
    const res = await create(apiKey(shop), {
      requests: [guideItem({ payee: dest.walletAddress.toLowerCase() })],
    });
    expect(res.statusCode, res.body).toBe(201);
    const [row] = await requestRows(res.json().requestIds);
    expect(row).toMatchObject({
      payee: dest.walletAddress,
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      expectedAmount: 12_500_000n,
    });
  });

  it('refuses a payee or payment currency other than the destination’s, writing nothing', async () => {
    await expectRefused(
      apiKey(shop),
      {
        requests: [guideItem({ payee: wallet(777), paymentCurrency: 'USDT-base' })],
      },
      400,
      validationFailed([
        {
          field: 'requests[0].payee',
          message: `must be the destination’s wallet (${dest.walletAddress})`,
        },
        {
          field: 'requests[0].paymentCurrency',
          message: 'must be the destination’s token (USDC-base)',
        },
      ]),
    );
  });

  it('refuses an invoice currency that is neither the destination’s token nor a fiat', async () => {
    await expectRefused(
      apiKey(shop),
      { requests: [guideItem({ invoiceCurrency: 'DAI-base' })] },
      400,
      validationFailed([
        {
          field: 'requests[0].invoiceCurrency',
          message:
            'is not a fiat code (USD, EUR, GBP, CNY, JPY) or the destination’s token (USDC-base)',
        },
      ]),
    );
  });

  it('takes a lower-case currency id, a native token’s, and a Tron wallet as written', async () => {
    const eth = await destination(shop, { tokenAddress: NATIVE_TOKEN_ADDRESS });
    const tron = await destination(shop, {
      walletAddress: TRON_WALLET,
      chainId: TRON_CHAIN_ID,
      tokenAddress: TRON_USDT,
    });
    for (const item of [
      guideItem({ invoiceCurrency: 'usdc-base', paymentCurrency: 'usdc-base' }),
      {
        destinationId: eth.destinationId,
        amount: '0.5',
        payee: eth.walletAddress,
        invoiceCurrency: 'ETH-base',
        paymentCurrency: 'ETH-base',
      },
      {
        destinationId: tron.destinationId,
        amount: '3',
        payee: TRON_WALLET,
        invoiceCurrency: 'USDT-tron',
        paymentCurrency: 'USDT-tron',
      },
    ]) {
      const res = await create(apiKey(shop), { requests: [item] });
      expect(res.statusCode, res.body).toBe(201);
    }
  });

  it('refuses a Tron wallet in another case (base58: case is meaning) and a bad EVM checksum', async () => {
    const tron = await destination(shop, {
      walletAddress: TRON_WALLET,
      chainId: TRON_CHAIN_ID,
      tokenAddress: TRON_USDT,
    });
    await expectRefused(
      apiKey(shop),
      {
        requests: [
          { destinationId: tron.destinationId, amount: '3', payee: TRON_WALLET.toLowerCase() },
        ],
      },
      400,
      validationFailed([
        {
          field: 'requests[0].payee',
          message: `must be the destination’s wallet (${TRON_WALLET})`,
        },
      ]),
    );
    // A wallet with many letters, its first one's case swapped: mixed case, a broken checksum.
    const hardhat = await destination(shop, {
      walletAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    });
    const swapped = '0x70997970c51812dc3A010C7d01b50e0d17dc79C8';
    await expectRefused(
      apiKey(shop),
      { requests: [{ destinationId: hardhat.destinationId, amount: '1', payee: swapped }] },
      400,
      validationFailed([
        { field: 'requests[0].payee', message: expect.stringContaining('EIP-55 checksum') },
      ]),
    );
  });

  it('pays a client ID’s bound destination when the fields say it, and refuses a payee the account has no destination for', async () => {
    const bound = await createTenant(t.db, 'Guide shop');
    const own = await destination(bound);
    await bindDestination(t.db, t.clock, bound.accountId, bound.backendClientId, own);
    const ok = await create(backend(bound), {
      requests: [{ amount: '1', payee: own.walletAddress, paymentCurrency: 'USDC-base' }],
    });
    expect(ok.statusCode, ok.body).toBe(201);
    // Another payee is looked for among the account's destinations (resolve-destinations.ts).
    await expectRefused(backend(bound), { requests: [{ amount: '1', payee: wallet(778) }] }, 400, {
      code: 'no_matching_destination',
    });
  });
});
