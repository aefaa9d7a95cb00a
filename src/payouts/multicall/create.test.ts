import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  CREATOR,
  createMulticall,
  expectFailures,
  failed,
  multicall,
  OTHER_CREATOR,
  payout,
  post,
  state,
  TRON_CREATOR,
  TRON_RECIPIENT,
} from '../../../test/multicall.ts';
import {
  type Body,
  createLink,
  DAY_MS,
  destination,
  rival,
  rowCounts,
  setLinkStatus,
  setupSecurePaymentsApp,
  shop,
  t,
  validationFailed,
} from '../../../test/secure-payments.ts';
import { requests, securePayments } from '../../db/schema.ts';
import { TOTAL_TOO_LARGE_MESSAGE } from '../../payments/amounts.ts';

/**
 * `POST /v2/secure-payments/multicall-payouts` over HTTP on the real app: the parent it writes,
 * every eligibility reason and the cap, each refusal writing nothing.
 */

setupSecurePaymentsApp();

describe('POST /v2/secure-payments/multicall-payouts', () => {
  it('answers 201 with the parent, expiring with its first child to expire, and writes nothing else', async () => {
    const a = await payout({ amount: '1.5' });
    const b = await payout({ amount: '2' });
    const c = await payout({ amount: '3.25', currency: 'DAI-base' });
    const soon = new Date(t.clock.now().getTime() + DAY_MS);
    await setLinkStatus(b.token, { expiresAt: soon });
    const before = await rowCounts();

    const res = await createMulticall({ childTokens: [a.token, b.token.toLowerCase(), c.token] });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      type: 'multicall',
      token: expect.stringMatching(/^[0-9A-Z]{26}$/),
      securePaymentUrl: `https://pay.payreq.test/?token=${body.token}`,
      status: 'pending',
      expiresAt: soon.toISOString(),
      createdAt: t.clock.now().toISOString(),
      items: [a, b, c].map((child, position) => ({
        securePaymentToken: child.token,
        requestId: child.requestId,
        position,
        eligibility: 'eligible',
      })),
    });
    // One link more (the parent), no request more: it pays its children's.
    expect(await rowCounts()).toEqual({ links: before.links + 1, requests: before.requests });
    const [parent] = await t.db
      .select()
      .from(securePayments)
      .where(eq(securePayments.token, body.token));
    expect(parent).toMatchObject({
      multicall: true,
      payout: true,
      creatorWallet: CREATOR,
      network: 'base',
      executionKind: null,
      accountId: shop.accountId,
    });
  });

  it('refuses each ineligible child with its reason, all at once, and writes nothing', async () => {
    const good = await payout();
    const incoming = await createLink(shop, [
      { destinationId: (await destination(shop)).destinationId, amount: '1' },
    ]);
    const first = await payout();
    const second = await payout();
    const merged = await post('/v2/secure-payments/batch-payouts', {
      tokens: [first.token, second.token],
    });
    expect(merged.statusCode, merged.body).toBe(201);
    const paid = await payout();
    await t.db
      .update(requests)
      .set({ status: 'paid', totalAmountPaid: 10_000_000n })
      .where(eq(requests.requestId, paid.requestId));
    const expired = await payout();
    await setLinkStatus(expired.token, { expiresAt: new Date(t.clock.now().getTime() - 1) });
    const screened = await payout();
    await setLinkStatus(screened.token, { status: 'compliance_failed' });
    const theirs = await payout({}, rival);
    const otherCreator = await payout({ creatorWalletAddress: OTHER_CREATOR });
    const tron = await payout({
      network: 'tron',
      currency: 'USDT-tron',
      recipient: TRON_RECIPIENT,
      creatorWalletAddress: TRON_CREATOR,
    });
    const busy = await payout();
    const busyToo = await payout();
    await multicall([busy.token, busyToo.token]);
    const unknown = '01KZZZZZZZZZZZZZZZZZZZZZZZ';

    await expectFailures(
      {
        childTokens: [
          good.token,
          unknown,
          theirs.token,
          incoming.token,
          merged.json().token,
          first.token,
          paid.token,
          expired.token,
          screened.token,
          otherCreator.token,
          tron.token,
          busy.token,
        ],
      },
      [
        failed(unknown, 'not_found', { securePaymentToken: unknown, position: 1 }),
        failed(theirs.token, 'not_owned', { position: 2, hasBeenPaid: false }),
        failed(incoming.token, 'not_outgoing', { requestId: incoming.requestIds[0] }),
        failed(merged.json().token, 'not_single_payment', { securePaymentStatus: 'pending' }),
        failed(first.token, 'secure_payment_not_pending', {
          securePaymentStatus: 'invalidated',
        }),
        failed(paid.token, 'already_paid', { hasBeenPaid: true, requestStatus: 'paid' }),
        failed(expired.token, 'secure_payment_expired', { securePaymentStatus: 'expired' }),
        failed(screened.token, 'compliance_failed'),
        failed(otherCreator.token, 'invalid_child_linkage', { network: 'base' }),
        failed(tron.token, 'invalid_child_linkage', { network: 'tron', currency: 'USDT-tron' }),
        failed(busy.token, 'request_processing', { requestId: busy.requestId }),
      ],
    );
  });

  it('refuses a TRX payout (the Tron batch contract pays TRC-20 only) as not payable', async () => {
    const tron = { network: 'tron', recipient: TRON_RECIPIENT, creatorWalletAddress: TRON_CREATOR };
    const usdt = await payout({ ...tron, currency: 'USDT-tron' });
    const trx = await payout({ ...tron, currency: 'TRX-tron' });
    await expectFailures({ childTokens: [usdt.token, trx.token] }, [
      failed(trx.token, 'not_payable_child', { currency: 'TRX-tron' }),
    ]);
  });

  it('checks the requested execution kind against the children', async () => {
    const base = await payout();
    const baseToo = await payout();
    const tron = { network: 'tron', recipient: TRON_RECIPIENT, creatorWalletAddress: TRON_CREATOR };
    const usdt = await payout({ ...tron, currency: 'USDT-tron' });
    await expectFailures(
      { childTokens: [base.token, baseToo.token], requestedExecutionKind: 'tron_batch' },
      [failed(base.token, 'invalid_child_linkage'), failed(baseToo.token, 'invalid_child_linkage')],
    );
    await expectFailures(
      { childTokens: [base.token, usdt.token], requestedExecutionKind: 'evm_same_chain' },
      [failed(usdt.token, 'invalid_child_linkage')],
    );
    const sepolia = await payout({ network: 'sepolia', currency: 'FAU-sepolia' });
    await expectFailures(
      { childTokens: [base.token, sepolia.token], requestedExecutionKind: 'evm_same_chain' },
      [failed(sepolia.token, 'invalid_child_linkage', { network: 'sepolia' })],
    );
  });

  it('makes a cross-chain parent of children on several networks, asked for or implied', async () => {
    const kindOf = async (token: string) => {
      const [row] = await t.db.select().from(securePayments).where(eq(securePayments.token, token));
      return row?.executionKind;
    };
    const asked = await createMulticall({
      childTokens: [
        (await payout()).token,
        (await payout({ network: 'sepolia', currency: 'FAU-sepolia' })).token,
      ],
      requestedExecutionKind: 'evm_cross_chain',
    });
    expect(asked.statusCode, asked.body).toBe(201);
    expect(await kindOf(asked.json().token)).toBe('evm_cross_chain');
    const implied = await createMulticall({
      childTokens: [
        (await payout()).token,
        (await payout({ network: 'sepolia', currency: 'FAU-sepolia' })).token,
      ],
    });
    expect(implied.statusCode, implied.body).toBe(201);
    // Stored as asked (nothing); derived as cross-chain when read.
    expect(await kindOf(implied.json().token)).toBeNull();
    const view = await t.app.inject({
      url: `/v2/secure-payments/multicall-payouts/${implied.json().token}`,
      headers: { 'x-api-key': shop.apiKey },
    });
    expect(view.json().executionKind).toBe('evm_cross_chain');
  });

  it('refuses a native-currency child of a cross-chain parent: a bridge delivers tokens', async () => {
    const usdc = await payout();
    const eth = await payout({ currency: 'ETH-base', amount: '0.01' });
    await expectFailures(
      { childTokens: [usdc.token, eth.token], requestedExecutionKind: 'evm_cross_chain' },
      [failed(eth.token, 'not_payable_child', { currency: 'ETH-base' })],
    );
    // The same children on one network, paid there, are fine.
    expect((await createMulticall({ childTokens: [usdc.token, eth.token] })).statusCode).toBe(201);
  });

  it('refuses a cross-chain parent of more than 20 children, implied by their networks, naming the cap', async () => {
    const children = [
      ...(await Promise.all(Array.from({ length: 20 }, () => payout()))),
      await payout({ network: 'sepolia', currency: 'FAU-sepolia' }),
    ];
    const before = await state();
    await expectFailures(
      { childTokens: children.map((child) => child.token) },
      [
        {
          securePaymentToken: '*',
          reason: 'too_many_children',
          context: { maximum: 20, actual: 21 },
        },
      ],
      { cap: { type: 'child_count', maximum: 20, actual: 21, reduceBy: 1 } },
    );
    expect(await state()).toEqual(before);
  });

  it('refuses more children than the cap with the cap object, before reading any', async () => {
    const tokens = Array.from(
      { length: 151 },
      (_, i) => `01KAAAAAAAAAAAAAAAAAA${String(i).padStart(5, '0')}`,
    );
    await expectFailures(
      { childTokens: tokens },
      [
        {
          securePaymentToken: '*',
          reason: 'too_many_children',
          messageKey: 'multicall.too_many_children',
          recoveryAction: 'recreate_reduced',
        },
      ],
      { cap: { type: 'child_count', maximum: 150, actual: 151, reduceBy: 1 } },
    );
    await expectFailures(
      { childTokens: tokens.slice(0, 21), requestedExecutionKind: 'evm_cross_chain' },
      [{ securePaymentToken: '*', reason: 'too_many_children' }],
      { cap: { type: 'child_count', maximum: 20, actual: 21, reduceBy: 1 } },
    );
  });

  it('refuses a repeated token, one child, unknown fields and a kind outside the enum', async () => {
    const a = await payout();
    const b = await payout();
    const cases: [Body, Body][] = [
      [
        { childTokens: [a.token, b.token, a.token.toLowerCase()] },
        validationFailed([{ field: 'childTokens[2]', message: 'repeats a token' }]),
      ],
      [{ childTokens: [a.token] }, validationFailed([{ field: 'childTokens' }])],
      [{ childTokens: [a.token, b.token], extra: 1 }, validationFailed([{ field: 'extra' }])],
      [
        { childTokens: [a.token, b.token], requestedExecutionKind: 'solana' },
        validationFailed([{ field: 'requestedExecutionKind' }]),
      ],
    ];
    for (const [payload, body] of cases) {
      const before = await state();
      const res = await createMulticall(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject(body);
      expect(await state()).toEqual(before);
    }
  });

  it('refuses children whose total of one token no single payment can move, as batch payouts do', async () => {
    // Each fits a uint256; together they do not, so no /pay of the parent could ever answer.
    const half = ((2n ** 256n - 1n) / 2n + 1n).toString();
    const amount = `${half.slice(0, -6)}.${half.slice(-6)}`;
    const a = await payout({ amount });
    const b = await payout({ amount });
    const before = await state();
    const res = await createMulticall({ childTokens: [a.token, b.token] });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject(
      validationFailed([{ field: 'childTokens', message: TOTAL_TOO_LARGE_MESSAGE }]),
    );
    expect(await state()).toEqual(before);
  });
});
