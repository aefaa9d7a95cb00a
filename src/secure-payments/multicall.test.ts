import { eq } from 'drizzle-orm';
import { decodeFunctionData, getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import {
  apiKey,
  BASE_DAI,
  BASE_USDC,
  type Body,
  createLink,
  DAY_MS,
  destination,
  get,
  type Headers,
  pay,
  rival,
  rowCounts,
  setLinkStatus,
  setupSecurePaymentsApp,
  shop,
  t,
  validationFailed,
  wallet,
} from '../../test/secure-payments.ts';
import { multicallChildren, requests, securePayments } from '../db/schema.ts';
import { batchPaymentsAbi } from '../payments/abis.ts';
import { TOTAL_TOO_LARGE_MESSAGE } from '../payments/amounts.ts';
import { referenceBytes } from '../payments/references.ts';
import { applyPayment, reversePayment } from '../requests/settle.ts';
import { completeLinkIfPaid, reopenLinkIfUnpaid } from './completion.ts';
import { CROSS_CHAIN_MULTICALL_MESSAGE, MULTICALL_VALIDATION_MESSAGE } from './multicall.ts';
import { NOT_EXECUTABLE_MESSAGE } from './multicall-calldata.ts';
import { BLOCK_MESSAGES } from './multicall-children.ts';
import { inMulticallMessage } from './payouts.ts';

/**
 * Multicall payouts over HTTP on the real app: creation with every eligibility reason and the
 * cap, the parent's view and status as its children change, and Variant C calldata.
 */

setupSecurePaymentsApp();

const CREATOR = wallet(9102);
const OTHER_CREATOR = wallet(9103);
const TRON_CREATOR = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
const TRON_RECIPIENT = 'TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF';
const BASE_BATCH = '0x1aF3f22685AcdDc788B3730ed415912d8f654420';

function post(url: string, payload: Body, headers: Headers = apiKey(shop)) {
  return t.app.inject({ method: 'POST', url, headers, payload });
}

async function payout(extra: Body = {}, tenant: Tenant = shop) {
  const res = await post(
    '/v2/secure-payments/payouts',
    {
      recipient: wallet(9200 + Math.floor(Math.random() * 500)),
      creatorWalletAddress: CREATOR,
      network: 'base',
      currency: 'USDC-base',
      amount: '10',
      ...extra,
    },
    apiKey(tenant),
  );
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json() as { token: string; requestIds: string[] };
  return { token: body.token, requestId: body.requestIds[0] as string };
}

function createMulticall(payload: Body, headers: Headers = apiKey(shop)) {
  return post('/v2/secure-payments/multicall-payouts', payload, headers);
}

async function multicall(childTokens: string[], extra: Body = {}) {
  const res = await createMulticall({ childTokens, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { token: string; expiresAt: string; items: { requestId: string }[] };
}

async function state() {
  return {
    counts: await rowCounts(),
    children: (await t.db.select().from(multicallChildren)).length,
  };
}

/** The 400 envelope with the failures in the order sent; nothing written. */
async function expectFailures(payload: Body, failures: Body[], extra: Body = {}) {
  const before = await state();
  const res = await createMulticall(payload);
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({
    statusCode: 400,
    error: 'Bad Request',
    message: MULTICALL_VALIDATION_MESSAGE,
    code: 'multicall_validation_failed',
    failures,
    ...extra,
  });
  expect(res.json().failures).toHaveLength(failures.length);
  expect(await state()).toEqual(before);
  return res.json();
}

const failed = (token: string, reason: keyof typeof BLOCK_MESSAGES, context: Body = {}) => ({
  securePaymentToken: token,
  reason,
  message: BLOCK_MESSAGES[reason],
  messageKey: `multicall.child.${reason}`,
  recoveryAction:
    reason === 'request_processing'
      ? 'recreate_after_cooldown'
      : reason === 'compliance_failed'
        ? 'support_required'
        : 'remove_child',
  context: expect.objectContaining(context),
});

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

  it('answers 400 naming cross-chain for evm_cross_chain and for children on several networks', async () => {
    const base = await payout();
    const sepolia = await payout({ network: 'sepolia', currency: 'FAU-sepolia' });
    const before = await state();
    const asked = await createMulticall({
      childTokens: [base.token, sepolia.token],
      requestedExecutionKind: 'evm_cross_chain',
    });
    expect(asked.statusCode).toBe(400);
    expect(asked.json()).toMatchObject({
      code: 'crosschain_unavailable',
      message: CROSS_CHAIN_MULTICALL_MESSAGE,
    });
    const implied = await createMulticall({ childTokens: [base.token, sepolia.token] });
    expect(implied.statusCode).toBe(400);
    expect(implied.json()).toMatchObject({
      code: 'crosschain_unavailable',
      message: `${CROSS_CHAIN_MULTICALL_MESSAGE} (children on base, sepolia)`,
    });
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

describe('a reorganisation taking a child’s payment back', () => {
  it('puts a completed parent back to partially settled, payable for that child again', async () => {
    const a = await payout({ amount: '1' });
    const b = await payout({ amount: '2' });
    t.clock.advance(1000);
    const { token } = await multicall([a.token, b.token]);
    const rowOf = async (requestId: string) =>
      (await t.db.select().from(requests).where(eq(requests.requestId, requestId)))[0];
    const settle = async (requestId: string, amount: bigint) => {
      const row = await rowOf(requestId);
      await t.db.transaction(async (tx) => {
        const paid = await applyPayment(tx, row?.id ?? '', amount, t.clock.now());
        if (paid) await completeLinkIfPaid(tx, paid, t.clock.now());
      });
    };
    await settle(a.requestId, 1_000_000n);
    await settle(b.requestId, 2_000_000n);
    const view = () => get(`/v2/secure-payments/multicall-payouts/${token}`, apiKey(shop));
    expect((await view()).json()).toMatchObject({ status: 'completed', canExecute: false });
    expect((await pay(token, {})).statusCode).toBe(409);

    const row = await rowOf(b.requestId);
    await t.db.transaction(async (tx) => {
      const reversed = await reversePayment(tx, row?.id ?? '', 2_000_000n);
      if (reversed) await reopenLinkIfUnpaid(tx, reversed);
    });
    expect((await view()).json()).toMatchObject({
      status: 'partially_settled',
      canExecute: true,
      children: [
        { executable: false, blockReason: 'already_paid' },
        { executable: true, blockReason: null },
      ],
    });
    const again = await pay(token, {});
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().requestIds).toEqual([b.requestId]);
    const listed = await get('/v2/secure-payments?payout=true&limit=1', apiKey(shop));
    expect(listed.json().securePayments[0]).toMatchObject({
      token,
      status: 'partially_settled',
      completedAt: null,
    });
    // Still its parent's: no other multicall or batch may take it.
    const c = await payout();
    const batch = await post('/v2/secure-payments/batch-payouts', { tokens: [c.token, b.token] });
    expect(batch.json().code).toBe('payout_link_in_multicall');
  });
});

describe('racing for a child', () => {
  it('lets one of two multicalls have a child, whichever order they name them in', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b, c] = [await payout(), await payout(), await payout()];
      const answers = await Promise.all([
        createMulticall({ childTokens: [a.token, b.token] }),
        createMulticall({ childTokens: [b.token, a.token, c.token] }),
      ]);
      expect(answers.map((res) => res.statusCode).sort(), answers[1]?.body).toEqual([201, 400]);
      const refused = answers.find((res) => res.statusCode === 400)?.json();
      expect(refused.code).toBe('multicall_validation_failed');
      expect(refused.failures.map((f: Body) => f.reason)).toEqual([
        'request_processing',
        'request_processing',
      ]);
    }
  });

  it('lets a multicall or a batch payout have a child, not both', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b, c] = [await payout(), await payout(), await payout()];
      const answers = await Promise.all([
        createMulticall({ childTokens: [a.token, b.token] }),
        post('/v2/secure-payments/batch-payouts', { tokens: [c.token, b.token] }),
      ]);
      expect(answers.map((res) => res.statusCode).sort(), answers[1]?.body).toEqual([201, 400]);
      const code = answers.find((res) => res.statusCode === 400)?.json().code;
      expect(['multicall_validation_failed', 'payout_link_in_multicall']).toContain(code);
    }
  });
});

describe('the lookup row’s selection hints', () => {
  it('names a link that a pending multicall waits on as request_processing, as creation would', async () => {
    const b = await payout();
    t.clock.advance(DAY_MS);
    const a = await payout();
    const lookup = async (requestId: string) => {
      const res = await get(`/v2/secure-payments?requestId=${requestId}`, apiKey(shop));
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    expect(await lookup(a.requestId)).toMatchObject({ childExecutable: true, blockReason: null });
    await multicall([a.token, b.token]);
    expect(await lookup(a.requestId)).toMatchObject({
      childExecutable: false,
      blockReason: 'request_processing',
    });
    // Once that parent has expired (with b, its first child to expire), a is free again.
    t.clock.advance(6.5 * DAY_MS);
    expect(await lookup(a.requestId)).toMatchObject({ childExecutable: true, blockReason: null });
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
