import { describe, expect, it } from 'vitest';
import { multicall, payout, post } from '../../test/multicall.ts';
import {
  apiKey,
  BASE_DAI,
  calldata,
  createLink,
  destination,
  get,
  pay,
  rival,
  setupSecurePaymentsApp,
  shop,
  t,
  UNKNOWN_TOKEN,
  wallet,
} from '../../test/secure-payments.ts';
import { paymentIntents } from '../db/schema.ts';

/**
 * `POST /v2/secure-payments/{token}/intent` and `/multicall-intent` (api-facts §2.8): every
 * validation rule, nothing written by a refusal, and the 423 a tracked Safe transaction puts on
 * the link's display, `/pay`, `/calldata` and a second intent until its deadline.
 */

setupSecurePaymentsApp();

const HASH = `0x${'ab'.repeat(32)}`;
const SAFE_HASH = `0x${'cd'.repeat(32)}`;

async function link() {
  const dest = await destination(shop);
  return createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
}

function intent(token: string, body: Record<string, unknown>, headers = apiKey(shop)) {
  return post(`/v2/secure-payments/${token}/intent`, body, headers);
}

async function intentCount(): Promise<number> {
  return (await t.db.select().from(paymentIntents)).length;
}

/** A 400 naming `field`, and no intent written. */
async function expectRefused(token: string, body: Record<string, unknown>, field: string) {
  const before = await intentCount();
  const res = await intent(token, body);
  expect(res.statusCode, res.body).toBe(400);
  expect(JSON.stringify(res.json())).toContain(field);
  expect(await intentCount()).toBe(before);
}

describe('POST /{token}/intent', () => {
  it('records a transaction the payer sent: isListening, the link stays payable', async () => {
    const { token, requestIds } = await link();
    const res = await intent(token, { txHash: HASH, chain: 'BASE', token: 'USDC' });
    expect(res.statusCode, res.body).toBe(200);
    const request = await get(`/v2/request/${requestIds[0]}`, apiKey(shop));
    expect(res.json()).toEqual({
      intentId: expect.any(String),
      paymentReference: request.json().paymentReference,
      txHash: HASH,
      isListening: true,
    });
    expect((await get(`/v2/secure-payments/${token}`, apiKey(shop))).statusCode).toBe(200);
  });

  it('refuses each malformed body with a 400 naming the field, writing nothing', async () => {
    const { token } = await link();
    const base = { chain: 'BASE', token: 'USDC' };
    await expectRefused(token, base, 'txHash');
    await expectRefused(token, { ...base, txHash: HASH, safeTxHash: SAFE_HASH }, 'txHash');
    await expectRefused(token, { ...base, txHash: '0x1234' }, 'txHash');
    await expectRefused(token, { txHash: HASH, token: 'USDC' }, 'chain');
    await expectRefused(token, { ...base, txHash: HASH, chain: 'SOLANA' }, 'chain');
    const unknown = await intent(token, { ...base, txHash: HASH, chain: 'base' });
    expect(unknown.json().errors).toEqual([
      {
        field: 'chain',
        message:
          'must be one of "BASE", "OPTIMISM", "ARBITRUM", "ETHEREUM", "POLYGON", "BNB", "SANDBOX", "SANDBOX_B"',
      },
    ]);
    await expectRefused(token, { chain: 'BASE', txHash: HASH }, 'token');
    await expectRefused(token, { ...base, token: 'EURC', txHash: HASH }, 'token');
    await expectRefused(
      token,
      { ...base, txHash: HASH, safePaymentDeadline: 2e9 },
      'safePaymentDeadline',
    );
    await expectRefused(
      token,
      { ...base, safeTxHash: SAFE_HASH, safePaymentDeadline: 0 },
      'safePaymentDeadline',
    );
    const past = Math.floor(t.clock.now().getTime() / 1000) - 1;
    await expectRefused(
      token,
      { ...base, safeTxHash: SAFE_HASH, safePaymentDeadline: past },
      'safePaymentDeadline',
    );
    await expectRefused(token, { ...base, txHash: HASH, payerAddress: '0xnope' }, 'payerAddress');
  });

  it('takes the symbol of any token the link is paid in, beyond the reference’s four', async () => {
    const dest = await destination(shop, { tokenAddress: BASE_DAI });
    const { token } = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
    const res = await intent(token, { txHash: HASH, chain: 'BASE', token: 'DAI' });
    expect(res.statusCode, res.body).toBe(200);
    await expectRefused(token, { txHash: HASH, chain: 'BASE', token: 'USDC' }, 'token');
    await expectRefused(token, { txHash: HASH, chain: 'BASE', token: 'dai' }, 'token');
  });

  it('refuses a Safe transaction on another network, an unknown link, another account’s', async () => {
    const { token } = await link();
    // A transaction on another network is a bridge transfer (bridge-tracker.test.ts); a Safe
    // transaction is tracked on the link's own network only.
    const other = await intent(token, { safeTxHash: HASH, chain: 'ARBITRUM', token: 'USDC' });
    expect(other.statusCode, other.body).toBe(400);
    expect(other.json().code).toBe('crosschain_unavailable');
    const body = { txHash: HASH, chain: 'BASE', token: 'USDC' };
    expect((await intent(UNKNOWN_TOKEN, body)).statusCode).toBe(404);
    expect((await intent(token, body, apiKey(rival))).statusCode).toBe(404);
  });

  it('locks the link with 423 while a Safe transaction is tracked, until its deadline', async () => {
    const { token, requestIds } = await link();
    const deadline = Math.floor(t.clock.now().getTime() / 1000) + 3600;
    const res = await intent(token, {
      safeTxHash: SAFE_HASH,
      chain: 'BASE',
      token: 'USDC',
      safePaymentDeadline: deadline,
      payerAddress: wallet(77),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      safeTxHash: SAFE_HASH,
      safePaymentDeadline: deadline,
      isListening: true,
      payerAddress: wallet(77),
    });
    const locked = {
      statusCode: 423,
      code: 'secure_payment_in_progress',
      message: 'Secure payment is in progress',
      status: 'pending',
      branding: null,
      requestStatuses: [
        {
          requestId: requestIds[0],
          hasBeenPaid: false,
          safeTxHash: SAFE_HASH,
          chainId: 8453,
          safePaymentDeadline: deadline,
        },
      ],
    };
    for (const answer of [
      await get(`/v2/secure-payments/${token}`, apiKey(shop)),
      await pay(token, {}),
      await calldata(token, {}),
      await intent(token, { txHash: HASH, chain: 'BASE', token: 'USDC' }),
    ]) {
      expect(answer.statusCode, answer.body).toBe(423);
      expect(answer.json()).toMatchObject(locked);
    }
    t.clock.advance(3600 * 1000 + 1);
    expect((await get(`/v2/secure-payments/${token}`, apiKey(shop))).statusCode).toBe(200);
  });

  it('tracks a Safe transaction until the link expires, as /pay announced, and never after', async () => {
    const expiryOf = async (token: string) =>
      Math.floor(
        Date.parse((await get(`/v2/secure-payments/${token}`, apiKey(shop))).json().expiresAt) /
          1000,
      );
    const { token } = await link();
    const expiry = await expiryOf(token);
    const res = await intent(token, { safeTxHash: SAFE_HASH, chain: 'BASE', token: 'USDC' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().safePaymentDeadline).toBe(expiry);

    // A later deadline is taken as the link's expiry; one in milliseconds is refused.
    const other = await link();
    const otherExpiry = await expiryOf(other.token);
    const later = await intent(other.token, {
      safeTxHash: SAFE_HASH,
      chain: 'BASE',
      token: 'USDC',
      safePaymentDeadline: 4_000_000_000,
    });
    expect(later.statusCode, later.body).toBe(200);
    expect(later.json().safePaymentDeadline).toBe(otherExpiry);
    const third = await link();
    await expectRefused(
      third.token,
      {
        safeTxHash: SAFE_HASH,
        chain: 'BASE',
        token: 'USDC',
        safePaymentDeadline: t.clock.now().getTime() + 60_000,
      },
      'safePaymentDeadline',
    );

    t.clock.advance(expiry * 1000 - t.clock.now().getTime() - 1000);
    expect((await pay(token, {})).statusCode).toBe(423);
  });
});

describe('POST /{token}/multicall-intent and the 0.13.0 receipt form of /intent', () => {
  async function parent() {
    const children = [(await payout()).token, (await payout()).token];
    return multicall(children);
  }

  const receipt = {
    chain: 'BASE',
    smartAccountAddress: wallet(88),
    userOpHash: HASH,
    transactionIndices: [
      { childPosition: 0, transactionIndex: 1 },
      { childPosition: 1, transactionIndex: 2, routeKind: 'same_chain' },
    ],
  };

  it('keeps a receipt for audit and answers how many legs it named', async () => {
    const { token } = await parent();
    const res = await post(`/v2/secure-payments/${token}/multicall-intent`, receipt);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ recorded: 2 });
  });

  it('answers 0.13.0’s receipt when the same body goes to /intent', async () => {
    const { token } = await parent();
    const res = await intent(token, receipt);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      receiptId: expect.any(String),
      multicallId: expect.any(String),
      parentToken: token,
      sourceChain: 'BASE',
      smartAccountAddress: wallet(88),
      userOpHash: HASH,
      transactionIndices: [
        { childPosition: 0, transactionIndex: 1 },
        { childPosition: 1, transactionIndex: 2 },
      ],
      isListening: false,
    });
  });

  it('takes the source chain of a cross-chain parent, and refuses it on a same-chain one', async () => {
    const sepolia = await payout({ network: 'sepolia', currency: 'FAU-sepolia' });
    const crossChain = await multicall([(await payout()).token, sepolia.token]);
    const fromArbitrum = { ...receipt, chain: 'ARBITRUM' };
    const taken = await post(`/v2/secure-payments/${crossChain.token}/multicall-intent`, {
      ...fromArbitrum,
      transactionIndices: [
        {
          childPosition: 0,
          transactionIndex: 1,
          routeKind: 'crosschain',
          bridgeTool: 'across',
          sourceToken: 'USDT',
          sourceAmount: '1.01',
        },
        { childPosition: 1, transactionIndex: 2, routeKind: 'crosschain', bridgeTool: 'across' },
      ],
    });
    expect(taken.statusCode, taken.body).toBe(200);
    expect(taken.json()).toEqual({ recorded: 2 });
    const rows = await t.db.select().from(paymentIntents);
    expect(rows.filter((row) => row.network === 'arbitrum-one')).toMatchObject([
      { kind: 'multicall', legCount: 2 },
    ]);
    const legacy = await intent(crossChain.token, fromArbitrum);
    expect(legacy.statusCode, legacy.body).toBe(200);
    expect(legacy.json()).toMatchObject({ sourceChain: 'ARBITRUM', parentToken: crossChain.token });

    const { token } = await parent();
    const before = await intentCount();
    const refused = await post(`/v2/secure-payments/${token}/multicall-intent`, fromArbitrum);
    expect(refused.statusCode, refused.body).toBe(400);
    expect(await intentCount()).toBe(before);
  });

  it('refuses a link that is no multicall, an unknown child, an empty list, writing nothing', async () => {
    const single = await link();
    const { token } = await parent();
    const before = await intentCount();
    const notParent = await post(`/v2/secure-payments/${single.token}/multicall-intent`, receipt);
    expect(notParent.statusCode, notParent.body).toBe(400);
    const unknownChild = await post(`/v2/secure-payments/${token}/multicall-intent`, {
      ...receipt,
      transactionIndices: [{ childPosition: 7, transactionIndex: 0 }],
    });
    expect(unknownChild.statusCode, unknownChild.body).toBe(400);
    expect(unknownChild.json().errors[0].field).toBe('transactionIndices/0/childPosition');
    const empty = await post(`/v2/secure-payments/${token}/multicall-intent`, {
      ...receipt,
      transactionIndices: [],
    });
    expect(empty.statusCode, empty.body).toBe(400);
    const legacyWithout = await intent(token, { ...receipt, userOpHash: undefined });
    expect(legacyWithout.statusCode, legacyWithout.body).toBe(400);
    expect(await intentCount()).toBe(before);
  });
});
