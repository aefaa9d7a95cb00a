import { eq } from 'drizzle-orm';
import type { Address, Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { commerceActions } from '../../src/db/schema.ts';
import { usdcBalance } from '../chain.ts';
import {
  apiKey,
  BUYER_WALLET,
  backendClient,
  commerceRowOf,
  createdPayment,
  escrowBalance,
  local,
  MERCHANT_WALLET,
  OPERATOR_WALLET,
  operatorNonce,
  post,
  sendBuyerCalls,
  setupCommerceApp,
  signedBy,
  signedRefund,
  status,
  t,
  tenantA,
  wallet,
} from '../commerce.ts';

/**
 * A client ID is public (a shop's pages carry it): on chain, through HTTP, a stranger holding
 * it cannot have the server's operator key authorize, capture (to a fee receiver of theirs),
 * void or refund a buyer's hold: 403 `commerce_client_id_cannot_sign`, the operator's nonce,
 * the balances and the payment's actions unchanged. The account's API key can; the client ID
 * can with the operator's own signed transaction.
 */

setupCommerceApp({ realClock: true });

const STRANGER_WALLET = 4;
const url = (id: string, path: string) => `/v2/commerce-payments/${id}/${path}`;
const balance = (who: Address) => usdcBalance(local.chain, who);
const stranger = () => backendClient(tenantA);

async function actionsOf(requestId: string) {
  const { id } = await commerceRowOf(requestId);
  return t.db.select().from(commerceActions).where(eq(commerceActions.commercePaymentId, id));
}

const signedByOperator = (to: Hex, data: Hex) => signedBy(local.chain, OPERATOR_WALLET, to, data);

describe('the server signs only for a secret credential', () => {
  it('refuses a client ID’s authorize, capture, void and refund, sending and reserving nothing', async () => {
    // The shop made the payment from its page, with its client ID; the buyer pre-approved it.
    const { requestId, transactions } = await createdPayment({}, backendClient(tenantA));
    await sendBuyerCalls(BUYER_WALLET, transactions);
    const attacker = wallet(STRANGER_WALLET).address;
    const merchant = wallet(MERCHANT_WALLET).address;
    const nonce = await operatorNonce();

    const refused = async (path: string, body: object) => {
      const res = await post(url(requestId, path), body, stranger());
      expect(res.statusCode, `${path}: ${res.body}`).toBe(403);
      expect(res.json()).toMatchObject({
        code: 'commerce_client_id_cannot_sign',
        message: `A client ID is public: the server does not sign this ${path} with its operator key for it. Call with x-api-key, or send the operator's own signedTransaction of the /calldata answer`,
      });
    };
    await refused('authorize', {});
    expect(await operatorNonce()).toBe(nonce);
    expect(await escrowBalance()).toBe(0n);
    expect(await actionsOf(requestId)).toEqual([]);

    const authorized = await post(url(requestId, 'authorize'), {}, apiKey(tenantA));
    expect(authorized.statusCode, authorized.body).toBe(200);
    expect(await escrowBalance()).toBe(50_000_000n);

    const held = {
      nonce: await operatorNonce(),
      merchant: await balance(merchant),
      attacker: await balance(attacker),
      actions: (await actionsOf(requestId)).length,
    };
    await refused('capture', { captureAmount: '50', feeBps: 10_000, feeReceiver: attacker });
    await refused('void', {});
    await refused('refund', { refundAmount: '1' });
    expect(await operatorNonce()).toBe(held.nonce);
    expect(await escrowBalance()).toBe(50_000_000n);
    expect(await balance(merchant)).toBe(held.merchant);
    expect(await balance(attacker)).toBe(held.attacker);
    expect(await actionsOf(requestId)).toHaveLength(held.actions);

    // It still reads the payment and gets the calls to sign.
    const read = await status(requestId, stranger());
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toMatchObject({ status: 'AUTHORIZED', capturedAmount: '0' });
    const calldata = await post(
      url(requestId, 'capture/calldata'),
      { captureAmount: '1' },
      stranger(),
    );
    expect(calldata.statusCode, calldata.body).toBe(200);

    // The account's API key has the server sign.
    const captured = await post(
      url(requestId, 'capture'),
      { captureAmount: '30' },
      apiKey(tenantA),
    );
    expect(captured.statusCode, captured.body).toBe(200);
    expect(await balance(merchant)).toBe(held.merchant + 30_000_000n);
    const voided = await post(url(requestId, 'void'), {}, apiKey(tenantA));
    expect(voided.statusCode, voided.body).toBe(200);
    expect(voided.json()).toMatchObject({ voidedAmount: '20' });
    expect(await escrowBalance()).toBe(0n);
    expect(await balance(attacker)).toBe(held.attacker);
  });

  it('takes the operator’s own signed transactions from a client ID', async () => {
    const created = await createdPayment({}, stranger());
    const { requestId, transactions } = created;
    await sendBuyerCalls(BUYER_WALLET, transactions);
    const merchant = wallet(MERCHANT_WALLET).address;
    const before = await balance(merchant);

    const authorized = await post(
      url(requestId, 'authorize'),
      { signedTransaction: await signedByOperator(created.to, created.data) },
      stranger(),
    );
    expect(authorized.statusCode, authorized.body).toBe(200);
    expect(await escrowBalance()).toBe(50_000_000n);

    const call = await post(
      url(requestId, 'capture/calldata'),
      { captureAmount: '20' },
      stranger(),
    );
    expect(call.statusCode, call.body).toBe(200);
    const captured = await post(
      url(requestId, 'capture'),
      {
        captureAmount: '20',
        signedTransaction: await signedByOperator(call.json().to, call.json().calldata),
      },
      stranger(),
    );
    expect(captured.statusCode, captured.body).toBe(200);
    expect(await balance(merchant)).toBe(before + 20_000_000n);

    const voidCall = await post(url(requestId, 'void/calldata'), {}, stranger());
    expect(voidCall.statusCode, voidCall.body).toBe(200);
    const voided = await post(
      url(requestId, 'void'),
      { signedTransaction: await signedByOperator(voidCall.json().to, voidCall.json().calldata) },
      stranger(),
    );
    expect(voided.statusCode, voided.body).toBe(200);
    expect(await escrowBalance()).toBe(0n);

    const refunded = await signedRefund(
      (path, payload) => post(path, payload, stranger()),
      local.chain,
      OPERATOR_WALLET,
      requestId,
      '5',
    );
    expect(refunded.statusCode, refunded.body).toBe(200);
  });
});
