import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  create,
  destination,
  expectRefused,
  requestRows,
  setupSecurePaymentsApp,
  shop,
  validationFailed,
  wallet,
} from '../../test/secure-payments.ts';
import type { DestinationRow } from '../destinations/destinations.ts';

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
});
