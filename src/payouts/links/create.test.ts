import { describe, expect, it } from 'vitest';
import {
  CREATOR,
  expectPayoutRefused,
  linkRow,
  OTHER,
  payout,
  payoutBody,
  postPayout,
  RECIPIENT,
  TRON_CREATOR,
} from '../../../test/payouts.ts';
import {
  apiKey,
  BASE_USDC,
  backend,
  badRequest,
  createLink,
  destination,
  get,
  PAY_URL,
  pay,
  requestRows,
  rpcCalls,
  setupSecurePaymentsApp,
  shop,
  TRON_WALLET,
  t,
  validationFailed,
} from '../../../test/secure-payments.ts';
import { PAYOUT_WALLET_MESSAGE } from '../../secure-payments/calldata.ts';

/**
 * Hosted payout links over HTTP on the real app: `POST /v2/secure-payments/payouts` and the
 * creator-only `/pay`, with every refusal's status and exact message, and nothing written when
 * refused. Batches of them: batch.test.ts.
 */

setupSecurePaymentsApp();

describe('POST /v2/secure-payments/payouts', () => {
  it('answers 201 and writes one request from the creator wallet to the recipient, marked as a payout', async () => {
    const res = await postPayout(
      payoutBody({
        reference: 'payout-7',
        recipientIdentifier: 'freelancer-42',
        redirectUrl: 'https://shop.example/done',
        redirectLabel: 'Back to the shop',
        feePercentage: '2',
        feeAddress: OTHER,
        accessPolicy: { mode: 'off' },
        creatorWalletAddress: CREATOR.toLowerCase(),
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([
      'feePlan',
      'requestIds',
      'securePaymentUrl',
      'token',
    ]);
    expect(body.securePaymentUrl).toBe(`${PAY_URL}/?token=${body.token}`);
    // The body's fee fields are ignored: a USDC payout's plan, with no fee configured here.
    expect(body.feePlan).toMatchObject({ version: 1, flow: 'pay', totalFeesUsd: '0', fees: [] });
    expect(await linkRow(body.token)).toMatchObject({
      accountId: shop.accountId,
      payout: true,
      creatorWallet: CREATOR,
      network: 'base',
      status: 'pending',
      reference: 'payout-7',
      payerIdentifier: 'freelancer-42',
      redirectUrl: 'https://shop.example/done',
      redirectLabel: 'Back to the shop',
    });
    const [row] = await requestRows(body.requestIds);
    expect(row).toMatchObject({
      payee: RECIPIENT,
      payer: CREATOR,
      network: 'base',
      paymentCurrency: 'USDC-base',
      invoiceCurrency: 'USDC-base',
      expectedAmount: 12_500_000n,
      reference: 'payout-7',
      destinationId: null,
    });
  });

  it('accepts a backend client ID, and a Tron payout in USDT-tron', async () => {
    const res = await postPayout(
      payoutBody({
        recipient: TRON_WALLET,
        creatorWalletAddress: TRON_CREATOR,
        network: 'tron',
        currency: 'USDT-tron',
        amount: '3',
      }),
      backend(shop),
    );
    expect(res.statusCode, res.body).toBe(201);
    const [row] = await requestRows(res.json().requestIds);
    expect(row).toMatchObject({
      payee: TRON_WALLET,
      payer: TRON_CREATOR,
      expectedAmount: 3_000_000n,
    });
    expect(await linkRow(res.json().token)).toMatchObject({ network: 'tron', payout: true });
  });

  it('shows a payout link like any single link, flagged as a payout with its creator', async () => {
    const { token, requestIds } = await payout({ reference: 'payout-8' });
    const res = await get(`/v2/secure-payments/${token}`, apiKey(shop));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      paymentType: 'single',
      status: 'pending',
      requestIds,
      payee: RECIPIENT,
      amount: '12.5',
      paymentCurrency: 'USDC-base',
      isNativeCurrency: false,
      network: 'base',
      reference: 'payout-8',
      destination: {
        payeeAddress: RECIPIENT,
        tokenAddress: BASE_USDC,
        walletAddress: RECIPIENT,
        network: 'base',
        isMasked: false,
      },
      payout: true,
      creatorWalletAddress: CREATOR,
    });
  });

  it('returns 400 naming each bad field, and writes nothing', async () => {
    await expectPayoutRefused(
      payoutBody({ network: 'dogecoin' }),
      validationFailed([
        { field: 'network', message: expect.stringMatching(/^must be one of mainnet, .*tron/) },
      ]),
    );
    await expectPayoutRefused(
      payoutBody({ currency: 'NOPE-base' }),
      validationFailed([{ field: 'currency', message: 'is not a supported currency id' }]),
    );
    await expectPayoutRefused(
      payoutBody({ currency: 'USD' }),
      validationFailed([{ field: 'currency', message: 'is not a supported currency id' }]),
    );
    await expectPayoutRefused(
      payoutBody({ currency: 'USDC-optimism' }),
      validationFailed([{ field: 'currency', message: 'must be a currency of base' }]),
    );
    await expectPayoutRefused(
      payoutBody({ recipient: 'not-an-address' }),
      validationFailed([
        { field: 'recipient', message: 'must be an EVM address (0x followed by 40 hex digits)' },
      ]),
    );
    await expectPayoutRefused(
      payoutBody({ creatorWalletAddress: TRON_CREATOR }),
      validationFailed([
        {
          field: 'creatorWalletAddress',
          message: 'must be an EVM address (0x followed by 40 hex digits)',
        },
      ]),
    );
    await expectPayoutRefused(
      payoutBody({ network: 'tron', currency: 'USDT-tron', creatorWalletAddress: TRON_CREATOR }),
      validationFailed([{ field: 'recipient', message: 'must be a Tron address (T…)' }]),
    );
    await expectPayoutRefused(
      payoutBody({ recipient: `0x${'0'.repeat(40)}` }),
      validationFailed([{ field: 'recipient', message: 'must not be the zero address' }]),
    );
    await expectPayoutRefused(
      payoutBody({ amount: '1.0000001' }),
      validationFailed([{ field: 'amount', message: expect.any(String) }]),
    );
    await expectPayoutRefused(
      payoutBody({ redirectLabel: 'Back' }),
      badRequest(
        'redirectLabel cannot be provided without redirectUrl',
        'redirect_label_without_url',
      ),
    );
  });

  it('returns 400 for an accessPolicy that screens or restricts (payout recipients are not screened yet)', async () => {
    await expectPayoutRefused(payoutBody({ accessPolicy: { mode: 'kyt_all_wallets' } }), {
      statusCode: 400,
      code: 'feature_unavailable',
    });
  });
});

describe('GET /v2/secure-payments/{token}/pay of a payout link', () => {
  it('returns 403 for a wallet other than the creator’s, before any chain read', async () => {
    const { token } = await payout();
    const calls = rpcCalls.length;
    const res = await pay(token, { wallet: OTHER });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json()).toEqual({
      statusCode: 403,
      error: 'Forbidden',
      message: PAYOUT_WALLET_MESSAGE,
      code: 'payout_wallet_mismatch',
    });
    expect(PAYOUT_WALLET_MESSAGE).toBe(
      'Only the wallet that created this payout (creatorWalletAddress) can pay it',
    );
    const viaBody = await t.app.inject({
      method: 'POST',
      url: `/v2/secure-payments/${token}/calldata`,
      headers: apiKey(shop),
      payload: { wallet: OTHER },
    });
    expect(viaBody.statusCode, viaBody.body).toBe(403);
    expect(viaBody.json().code).toBe('payout_wallet_mismatch');
    expect(rpcCalls.length).toBe(calls);
  });

  it('lets the creator’s wallet through, in any case (here base is unreachable: 503)', async () => {
    const { token } = await payout();
    for (const address of [CREATOR, CREATOR.toLowerCase()]) {
      const res = await pay(token, { wallet: address });
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json().code).toBe('chain_rpc_failed');
    }
  });

  it('answers a payout link’s calldata as the outgoing flow, without a wallet (no chain read)', async () => {
    const { token } = await payout();
    const res = await pay(token, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ paymentType: 'single', flow: 'outgoing' });
    expect(res.json().paymentReference).toMatch(/^0x[0-9a-f]{16}$/);
  });

  it('leaves incoming links payable by any wallet', async () => {
    const dest = await destination(shop);
    const { token } = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
    const res = await pay(token, { wallet: OTHER });
    expect(res.statusCode, res.body).toBe(503);
  });
});
