import { eq } from 'drizzle-orm';
import { decodeFunctionData, getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createTenant } from '../../../test/fixtures.ts';
import {
  BASE_BATCH,
  CREATOR,
  multicall,
  OTHER_CREATOR,
  payout,
  post,
  state,
} from '../../../test/multicall.ts';
import {
  apiKey,
  BASE_DAI,
  BASE_USDC,
  DAY_MS,
  get,
  pay,
  rival,
  setLinkStatus,
  setupSecurePaymentsApp,
  shop,
  t,
  wallet,
} from '../../../test/secure-payments.ts';
import { requests } from '../../db/schema.ts';
import { batchPaymentsAbi } from '../../payments/abis.ts';
import { referenceBytes } from '../../payments/references.ts';
import { inMulticallMessage } from '../links/batch.ts';
import { NOT_EXECUTABLE_MESSAGE } from './calldata.ts';

/**
 * A multicall parent over HTTP on the real app: its view and status as its children change,
 * Variant C calldata, the creator-only rule, the batch-payouts guard and the configurable cap.
 */

setupSecurePaymentsApp();

describe('the parent: view, status and calldata', () => {
  it('keeps its children out of batch payout links while it is pending', async () => {
    const a = await payout();
    const b = await payout();
    const c = await payout();
    await multicall([a.token, b.token]);
    const before = await state();
    const res = await post('/v2/secure-payments/batch-payouts', { tokens: [c.token, b.token] });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'payout_link_in_multicall',
      message: inMulticallMessage(b.token),
    });
    expect(await state()).toEqual(before);
  });

  it('shows every child, the totals, and follows its children to partially settled and completed', async () => {
    const a = await payout({ amount: '1.5' });
    const b = await payout({ amount: '2.25' });
    const { token } = await multicall([a.token, b.token]);

    const view = await get(`/v2/secure-payments/multicall-payouts/${token}`, apiKey(shop));
    expect(view.statusCode, view.body).toBe(200);
    expect(view.json()).toMatchObject({
      paymentType: 'multicall',
      status: 'pending',
      token,
      canExecute: true,
      requestIds: [a.requestId, b.requestId],
      orchestratorId: null,
      branding: null,
      children: [
        {
          securePaymentToken: a.token,
          position: 0,
          executable: true,
          blockReason: null,
          amount: '1.5',
          paymentCurrency: 'USDC-base',
        },
        { securePaymentToken: b.token, position: 1, executable: true, amount: '2.25' },
      ],
      totals: {
        childCount: 2,
        blockedChildCount: 0,
        byDestinationCurrency: [{ network: 'base', currency: 'USDC-base', totalAmount: '3.75' }],
        amountSummary: { grossAmount: '3.75', payerTotal: '3.75', totalFees: '0' },
      },
      network: 'base',
      executionKind: 'evm_same_chain',
      creatorWalletAddress: CREATOR,
    });
    // The pay page reads the same view by the parent's token.
    const page = await get(`/v2/secure-payments/${token}`, apiKey(shop));
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json()).toEqual(view.json());

    await t.db
      .update(requests)
      .set({ status: 'paid', totalAmountPaid: 1_500_000n })
      .where(eq(requests.requestId, a.requestId));
    const partial = (
      await get(`/v2/secure-payments/multicall-payouts/${token}`, apiKey(shop))
    ).json();
    expect(partial).toMatchObject({
      status: 'partially_settled',
      canExecute: true,
      children: [{ executable: false, blockReason: 'already_paid' }, { executable: true }],
      totals: {
        blockedChildCount: 1,
        byDestinationCurrency: [{ totalAmount: '2.25' }],
      },
    });
    // Only what is still owed is in the calldata.
    const onlyB = await pay(token, {});
    expect(onlyB.statusCode, onlyB.body).toBe(200);
    expect(onlyB.json()).toMatchObject({ requestIds: [b.requestId], childTokens: [b.token] });

    await t.db
      .update(requests)
      .set({ status: 'paid', totalAmountPaid: 2_250_000n })
      .where(eq(requests.requestId, b.requestId));
    const done = await get(`/v2/secure-payments/multicall-payouts/${token}`, apiKey(shop));
    expect(done.json()).toMatchObject({ status: 'completed', canExecute: false });
    const completed = await pay(token, {});
    expect(completed.statusCode).toBe(409);
    expect(completed.json()).toMatchObject({
      code: 'secure_payment_completed',
      requestStatuses: [
        { requestId: a.requestId, hasBeenPaid: true },
        { requestId: b.requestId, hasBeenPaid: true },
      ],
    });
  });

  it('answers Variant C: approvals of the batch contract and one batchPayments over every child', async () => {
    const a = await payout({ amount: '1.5', reference: 'inv-a' });
    const b = await payout({ amount: '0.000001', currency: 'DAI-base' });
    const c = await payout({ amount: '2' });
    const { token } = await multicall([a.token, b.token, c.token]);
    const res = await pay(token, {});
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      paymentType: 'multicall',
      executionKind: 'evm_same_chain',
      token,
      network: 'base',
      chainId: 8453,
      childTokens: [a.token, b.token, c.token],
      requestIds: [a.requestId, b.requestId, c.requestId],
      amounts: ['1.5', '0.000001', '2'],
      references: ['inv-a', null, null],
      feeBundle: null,
      metadata: {
        stepsRequired: 3,
        needsApproval: true,
        approvalTransactionIndex: 0,
        approvalTransactionsCount: 2,
        approvalTransactionIndices: [0, 1],
        paymentTransactionIndex: 2,
        batchPaymentTransactionIndex: 2,
        feeTransactionIndices: [],
        bridgeTxIndices: [],
        childCount: 3,
        executableLegCount: 3,
        routeType: 'samechain',
        network: 'base',
      },
    });
    expect(body.metadata.paymentCurrencyId).toBeUndefined();
    expect(body.transactions).toEqual([
      ...body.ERC20ApprovalTransactions,
      body.batchPaymentTransaction,
    ]);
    expect(body.ERC20ApprovalTransactions.map((tx: { to: string }) => tx.to)).toEqual([
      BASE_USDC,
      BASE_DAI,
    ]);
    const batch = decodeFunctionData({
      abi: batchPaymentsAbi,
      data: body.batchPaymentTransaction.data,
    });
    expect(body.batchPaymentTransaction.to).toBe(getAddress(BASE_BATCH));
    const [details] = batch.args as unknown as [
      {
        requestDetails: { recipient: string; requestAmount: bigint; paymentReference: string }[];
      }[],
    ];
    expect(details[0]?.requestDetails.map((d) => d.requestAmount)).toEqual([
      1_500_000n,
      1_000_000_000_000n,
      2_000_000n,
    ]);
    expect(details[0]?.requestDetails.map((d) => d.paymentReference)).toEqual(
      body.children.map((child: { paymentReference: string }) =>
        referenceBytes(child.paymentReference),
      ),
    );
  });

  it('leaves out a child that expired since, and answers 403 when no child is left to pay', async () => {
    const a = await payout();
    const b = await payout();
    const { token } = await multicall([a.token, b.token]);
    await setLinkStatus(b.token, { status: 'invalidated' });
    const one = await pay(token, {});
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().requestIds).toEqual([a.requestId]);
    expect(one.json().metadata).toMatchObject({ childCount: 2, executableLegCount: 1 });
    await setLinkStatus(a.token, { status: 'compliance_failed' });
    const none = await pay(token, {});
    expect(none.statusCode).toBe(403);
    expect(none.json()).toMatchObject({
      code: 'multicall_not_executable',
      message: NOT_EXECUTABLE_MESSAGE,
    });
    const view = (await get(`/v2/secure-payments/multicall-payouts/${token}`, apiKey(shop))).json();
    expect(view).toMatchObject({ status: 'pending', canExecute: false });
  });

  it('is paid by its creator only, expires with its first child, and is another account’s 404', async () => {
    const a = await payout();
    const b = await payout();
    const { token } = await multicall([a.token, b.token]);
    const other = await pay(token, { wallet: OTHER_CREATOR });
    expect(other.statusCode).toBe(403);
    expect(other.json().code).toBe('payout_wallet_mismatch');
    expect(
      (await get(`/v2/secure-payments/multicall-payouts/${token}`, apiKey(rival))).statusCode,
    ).toBe(404);
    // A link that is not a multicall is not one here either.
    expect(
      (await get(`/v2/secure-payments/multicall-payouts/${a.token}`, apiKey(shop))).statusCode,
    ).toBe(404);

    t.clock.advance(8 * DAY_MS);
    const view = (await get(`/v2/secure-payments/multicall-payouts/${token}`, apiKey(shop))).json();
    expect(view).toMatchObject({
      status: 'expired',
      canExecute: false,
      children: [
        { blockReason: 'secure_payment_expired' },
        { blockReason: 'secure_payment_expired' },
      ],
    });
    expect((await pay(token, {})).statusCode).toBe(403);
  });

  it('lists the parent as a multicall payout with its children’s requests', async () => {
    const a = await payout();
    const b = await payout();
    t.clock.advance(1000);
    const { token } = await multicall([a.token, b.token]);
    const res = await get('/v2/secure-payments?payout=true&limit=1', apiKey(shop));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().securePayments[0]).toMatchObject({
      token,
      paymentType: 'multicall',
      payout: true,
      status: 'pending',
      requestIds: [a.requestId, b.requestId],
      completedAt: null,
    });

    // Completed when its last child is: that child's completion time.
    const first = new Date(t.clock.now().getTime() + 60_000);
    const last = new Date(t.clock.now().getTime() + 120_000);
    for (const [child, at] of [
      [b, last],
      [a, first],
    ] as const) {
      await t.db
        .update(requests)
        .set({ status: 'paid', totalAmountPaid: 10_000_000n })
        .where(eq(requests.requestId, child.requestId));
      await setLinkStatus(child.token, { status: 'completed', completedAt: at });
    }
    const done = await get('/v2/secure-payments?payout=true&limit=3', apiKey(shop));
    expect(done.json().securePayments[0]).toMatchObject({
      token,
      status: 'completed',
      completedAt: last.toISOString(),
    });
  });
});

describe('a cap set by MULTICALL_MAX_CHILDREN', () => {
  it('refuses a fourth child when the cap is 3', async () => {
    const capped = await createTestApp({ env: { MULTICALL_MAX_CHILDREN: '3' } });
    try {
      const tenant = await createTenant(capped.db, 'Capped');
      const tokens: string[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await capped.app.inject({
          method: 'POST',
          url: '/v2/secure-payments/payouts',
          headers: apiKey(tenant),
          payload: {
            recipient: wallet(9300 + i),
            creatorWalletAddress: CREATOR,
            network: 'base',
            currency: 'USDC-base',
            amount: '1',
          },
        });
        expect(res.statusCode, res.body).toBe(201);
        tokens.push(res.json().token);
      }
      const post = (childTokens: string[]) =>
        capped.app.inject({
          method: 'POST',
          url: '/v2/secure-payments/multicall-payouts',
          headers: apiKey(tenant),
          payload: { childTokens },
        });
      const refused = await post(tokens);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({
        code: 'multicall_validation_failed',
        cap: { type: 'child_count', maximum: 3, actual: 4, reduceBy: 1 },
      });
      expect((await post(tokens.slice(0, 3))).statusCode).toBe(201);
    } finally {
      await capped.close();
    }
  });
});
