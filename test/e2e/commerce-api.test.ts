import { eq } from 'drizzle-orm';
import { type Address, createWalletClient, custom, getAddress } from 'viem';
import { prepareTransactionRequest } from 'viem/actions';
import { describe, expect, it } from 'vitest';
import { commerceActions } from '../../src/db/schema.ts';
import { accountOf, usdcBalance } from '../chain.ts';
import {
  type AnsweredTransaction,
  apiKey,
  BUYER_WALLET,
  backendClient,
  createdPayment,
  local,
  MERCHANT_WALLET,
  OPERATOR_WALLET,
  operatorNonce,
  post,
  sendBuyerCalls,
  setClientIdCommerce,
  setupCommerceApp,
  signedRefund,
  status,
  t,
  tenantA,
  wallet,
} from '../commerce.ts';

/**
 * Commerce payments end to end through HTTP, on a local chain standing in for Base with our
 * escrow, collectors and Request's wrapper deployed: the buyer approves the wrapper and
 * pre-approves the terms, the server's operator authorizes (only then), captures and voids, and
 * refunds only what its key's holder signs; an operator with its own key sends signed
 * transactions. Balances are read on chain, exact to the base unit. (The status after the
 * buyer's own authorization needs detection, which is not asserted here.)
 */

setupCommerceApp({ realClock: true });

const FEE_RECEIVER = 4;
const url = (id: string, path: string) => `/v2/commerce-payments/${id}/${path}`;
const escrow = () => getAddress(t.chains.contracts('base').authCaptureEscrow ?? '');
const balance = (who: Address) => usdcBalance(local.chain, who);

/** The buyer's wallet sends these calls, in order. */
const buyerSends = (calls: readonly AnsweredTransaction[]) => sendBuyerCalls(BUYER_WALLET, calls);

describe('commerce payments on chain', () => {
  it('the buyer may send authorizePayment itself, after the approval', async () => {
    const body = await createdPayment();
    const buyer = wallet(BUYER_WALLET).address;
    const before = await balance(buyer);
    const [approval] = body.transactions;
    await buyerSends([approval, { to: body.to, data: body.data, value: { hex: '0x0' } }]);
    expect(await balance(buyer)).toBe(before - 50_000_000n);
    expect(await balance(escrow())).toBe(50_000_000n);
  });

  it('authorizes as the operator only on terms the buyer pre-approved, sending nothing before', async () => {
    const { requestId, transactions } = await createdPayment();
    const buyer = wallet(BUYER_WALLET).address;
    const [approval, preApproval] = transactions;
    const nonce = await operatorNonce();
    const bare = await post(url(requestId, 'authorize'), {});
    expect(bare.statusCode, bare.body).toBe(409);
    expect(bare.json()).toMatchObject({
      code: 'commerce_not_preapproved',
      message: `The buyer ${buyer} has not pre-approved this payment's terms on the wrapper: the buyer sends the transactions of /authorize/calldata (the approval of the wrapper, then preApproveAuthorization) before the operator authorizes, or authorizes from payUrl itself`,
    });
    // The approval alone, the standing kind an attacker would spend, is not consent.
    await buyerSends([approval]);
    const approvedOnly = await post(url(requestId, 'authorize'), {});
    expect(approvedOnly.statusCode, approvedOnly.body).toBe(409);
    expect(approvedOnly.json().code).toBe('commerce_not_preapproved');
    expect(await operatorNonce()).toBe(nonce);
    expect(await balance(escrow())).toBe(0n);

    await buyerSends([preApproval]);
    const authorized = await post(url(requestId, 'authorize'), {});
    expect(authorized.statusCode, authorized.body).toBe(200);
    expect(authorized.json()).toMatchObject({ requestId, status: 'AUTHORIZED', amount: '50' });
    expect(await balance(escrow())).toBe(50_000_000n);
  });

  it('refuses the operator’s authorization when the buyer’s approval is short, sending nothing', async () => {
    const { requestId, transactions } = await createdPayment();
    await buyerSends([transactions[1]]);
    const nonce = await operatorNonce();
    const short = await post(url(requestId, 'authorize'), {});
    expect(short.statusCode, short.body).toBe(409);
    expect(short.json()).toMatchObject({
      code: 'commerce_not_preapproved',
      message: `The buyer ${wallet(BUYER_WALLET).address} approved the wrapper for 0, short of the amount 50: the buyer sends the approval of /authorize/calldata first`,
    });
    expect(await operatorNonce()).toBe(nonce);
  });

  it('authorize 50, capture 30 with 1 %, capture 20, refund 10; then a second flow voided', async () => {
    const buyer = wallet(BUYER_WALLET).address;
    const merchant = wallet(MERCHANT_WALLET).address;
    const feeReceiver = wallet(FEE_RECEIVER).address;
    const start = {
      buyer: await balance(buyer),
      merchant: await balance(merchant),
      fee: await balance(feeReceiver),
    };
    const { requestId, transactions } = await createdPayment();
    await buyerSends(transactions);
    const authorized = await post(url(requestId, 'authorize'), {});
    expect(authorized.statusCode, authorized.body).toBe(200);
    expect(authorized.json()).toMatchObject({ requestId, status: 'AUTHORIZED', amount: '50' });
    expect(await balance(escrow())).toBe(50_000_000n);

    const first = await post(url(requestId, 'capture'), {
      captureAmount: '30',
      feeBps: 100,
      feeReceiver,
    });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ status: 'PAID', captureAmount: '30' });
    expect(await balance(merchant)).toBe(start.merchant + 29_700_000n);
    expect(await balance(feeReceiver)).toBe(start.fee + 300_000n);
    expect(await balance(escrow())).toBe(20_000_000n);

    const over = await post(url(requestId, 'capture'), { captureAmount: '20.000001' });
    expect(over.statusCode, over.body).toBe(409);
    expect(over.json().message).toBe(
      'captureAmount 20.000001 is more than the capturable amount, 20',
    );
    const second = await post(url(requestId, 'capture'), { captureAmount: '20' });
    expect(second.statusCode, second.body).toBe(200);
    expect(await balance(escrow())).toBe(0n);
    expect(await balance(merchant)).toBe(start.merchant + 49_700_000n);

    const nonce = await operatorNonce();
    const nothing = await post(url(requestId, 'void'), {});
    expect(nothing.statusCode, nothing.body).toBe(409);
    expect(nothing.json().message).toBe(
      'Nothing is held to void: the payment is fully captured or reclaimed',
    );
    const tooMuch = await post(url(requestId, 'refund/calldata'), { refundAmount: '50.000001' });
    expect(tooMuch.json().message).toBe(
      'refundAmount 50.000001 is more than the refundable amount, 50',
    );
    // The server's shared key would pay the refund from the platform's wallet: refused.
    const unfunded = await post(url(requestId, 'refund'), { refundAmount: '10' });
    expect(unfunded.statusCode, unfunded.body).toBe(409);
    expect(unfunded.json().code).toBe('commerce_refund_unfunded');
    expect(await operatorNonce()).toBe(nonce);
    expect(await balance(buyer)).toBe(start.buyer - 50_000_000n);

    // The key's holder refunds on purpose: it signs the refund itself.
    const refund = await signedRefund(post, local.chain, OPERATOR_WALLET, requestId, '10');
    expect(refund.statusCode, refund.body).toBe(200);
    expect(refund.json()).toMatchObject({ status: 'PARTIALLY_REFUNDED', refundAmount: '10' });
    expect(await balance(buyer)).toBe(start.buyer - 50_000_000n + 10_000_000n);
    const after = (await status(requestId)).json();
    expect(after).toMatchObject({
      status: 'PARTIALLY_REFUNDED',
      capturedAmount: '50',
      refundedAmount: '10',
      refundableAmount: '40',
      capturableAmount: '0',
      canCapture: false,
      canVoid: false,
      canRefund: true,
    });
    expect(after.events.map((e: { type: string }) => e.type)).toEqual([
      'AUTHORIZED',
      'CAPTURED',
      'CAPTURED',
      'REFUNDED',
    ]);

    // A second flow, voided: the buyer is back where it started.
    const next = await createdPayment();
    const held = await balance(buyer);
    await buyerSends(next.transactions);
    expect((await post(url(next.requestId, 'authorize'), {})).statusCode).toBe(200);
    expect(await balance(buyer)).toBe(held - 50_000_000n);
    const voided = await post(url(next.requestId, 'void'), { reason: 'order cancelled' });
    expect(voided.statusCode, voided.body).toBe(200);
    expect(voided.json()).toMatchObject({ status: 'VOIDED', voidedAmount: '50' });
    expect(await balance(buyer)).toBe(held);
    const again = await post(url(next.requestId, 'void'), {});
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('The payment is already voided');
  });

  it('refuses a capture after the authorization expired, with nothing sent', async () => {
    const { requestId, transactions } = await createdPayment({ authorizationExpiry: 600 });
    await buyerSends(transactions);
    expect((await post(url(requestId, 'authorize'), {})).statusCode).toBe(200);
    // The escrow's clock is its chain's: ten minutes pass there (the server reads it).
    await local.chain.provider.request({ method: 'evm_increaseTime', params: [601] });
    await local.chain.provider.request({ method: 'evm_mine', params: [] });
    // Read again within seconds (chain-time.ts).
    await expect
      .poll(async () => (await status(requestId)).json().canCapture, { timeout: 20_000 })
      .toBe(false);
    const expiry = (await status(requestId)).json().authorizationExpiry;
    const nonce = await operatorNonce();
    const res = await post(url(requestId, 'capture'), { captureAmount: '1' });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().message).toBe(
      `The authorization expired at ${expiry} (authorizationExpiry): nothing can be captured`,
    );
    expect(await operatorNonce()).toBe(nonce);
  }, 60_000);

  it('two racing captures of the last amount: one succeeds, one is refused', async () => {
    const { requestId, transactions } = await createdPayment();
    await buyerSends(transactions);
    expect((await post(url(requestId, 'authorize'), {})).statusCode).toBe(200);
    const both = await Promise.all([
      post(url(requestId, 'capture'), { captureAmount: '50' }),
      post(url(requestId, 'capture'), { captureAmount: '50' }),
    ]);
    expect(both.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    expect(await balance(escrow())).toBe(0n);
  });

  it('broadcasts an operator’s own signed capture and refund, and refuses one that differs', async () => {
    const operator = accountOf(local.chain, 6);
    await setClientIdCommerce(tenantA.backendClientId, { operatorWalletAddress: operator.address });
    try {
      const created = await createdPayment({}, backendClient(tenantA));
      const { requestId, transactions } = created;
      await buyerSends(transactions);
      // The buyer pre-approved the terms; the operator signs authorizePayment (`data`).
      const sign = async (path: string, body: object) => {
        const call = await post(url(requestId, `${path}/calldata`), body, backendClient(tenantA));
        expect(call.statusCode, call.body).toBe(200);
        const { to, calldata } = call.json();
        const client = createWalletClient({
          account: operator,
          chain: local.chain.chain,
          transport: custom(local.chain.provider, { retryCount: 0 }),
        });
        const prepared = await prepareTransactionRequest(client, { to, data: calldata });
        return client.signTransaction(prepared);
      };
      const clientTx = createWalletClient({
        account: operator,
        chain: local.chain.chain,
        transport: custom(local.chain.provider, { retryCount: 0 }),
      });
      const signedAuthorize = await clientTx.signTransaction(
        await prepareTransactionRequest(clientTx, { to: created.to, data: created.data }),
      );
      const authorized = await post(
        url(requestId, 'authorize'),
        { signedTransaction: signedAuthorize },
        backendClient(tenantA),
      );
      expect(authorized.statusCode, authorized.body).toBe(200);
      const wrong = await sign('capture', { captureAmount: '10' });
      const refused = await post(
        url(requestId, 'capture'),
        { captureAmount: '20', signedTransaction: wrong },
        backendClient(tenantA),
      );
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json().message).toBe(
        'signedTransaction does not carry the expected calldata (see the /calldata operation)',
      );
      const signed = await sign('capture', { captureAmount: '20' });
      const captured = await post(
        url(requestId, 'capture'),
        { captureAmount: '20', signedTransaction: signed },
        backendClient(tenantA),
      );
      expect(captured.statusCode, captured.body).toBe(200);
      expect(await balance(escrow())).toBe(30_000_000n);
      expect((await status(requestId, apiKey(tenantA))).json().capturedAmount).toBe('20');

      // Its refund comes from its own wallet: unsigned, the server holds no key to send it.
      const buyer = wallet(BUYER_WALLET).address;
      const before = { buyer: await balance(buyer), operator: await balance(operator.address) };
      const unsigned = await post(
        url(requestId, 'refund'),
        { refundAmount: '5' },
        backendClient(tenantA),
      );
      expect(unsigned.statusCode, unsigned.body).toBe(400);
      expect(unsigned.json().code).toBe('signed_transaction_required');
      const refunded = await signedRefund(
        (path, payload) => post(path, payload, backendClient(tenantA)),
        local.chain,
        6,
        requestId,
        '5',
      );
      expect(refunded.statusCode, refunded.body).toBe(200);
      expect(await balance(buyer)).toBe(before.buyer + 5_000_000n);
      expect(await balance(operator.address)).toBe(before.operator - 5_000_000n);
    } finally {
      await setClientIdCommerce(tenantA.backendClientId, { operatorWalletAddress: null });
    }
  });

  it('answers a signed capture sent twice, at once or again, as one: one reservation, one send', async () => {
    const { requestId, transactions } = await createdPayment();
    await buyerSends(transactions);
    expect((await post(url(requestId, 'authorize'), {})).statusCode).toBe(200);
    const call = (await post(url(requestId, 'capture/calldata'), { captureAmount: '20' })).json();
    const client = createWalletClient({
      account: accountOf(local.chain, OPERATOR_WALLET),
      chain: local.chain.chain,
      transport: custom(local.chain.provider, { retryCount: 0 }),
    });
    const signedTransaction = await client.signTransaction(
      await prepareTransactionRequest(client, { to: call.to, data: call.calldata }),
    );
    const nonce = await operatorNonce();
    const capture = () =>
      post(url(requestId, 'capture'), { captureAmount: '20', signedTransaction });
    const answers = [...(await Promise.all([capture(), capture()])), await capture()];
    answers.push(await capture());
    const [first] = answers;
    expect(first?.statusCode, first?.body).toBe(200);
    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json()).toMatchObject({
        requestId,
        captureAmount: '20',
        transactionHash: first?.json().transactionHash,
      });
    }
    const actions = await t.db
      .select()
      .from(commerceActions)
      .where(eq(commerceActions.kind, 'capture'));
    expect(
      actions.filter(
        (a) => a.txHash?.toLowerCase() === first?.json().transactionHash.toLowerCase(),
      ),
    ).toHaveLength(1);
    expect(await operatorNonce()).toBe(nonce + 1);
    expect(await balance(escrow())).toBe(30_000_000n);
    expect((await status(requestId)).json()).toMatchObject({
      capturedAmount: '20',
      capturableAmount: '30',
    });
  });
});
