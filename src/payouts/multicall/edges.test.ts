import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { CREATOR, createMulticall, multicall, payout, post } from '../../../test/multicall.ts';
import {
  apiKey,
  type Body,
  DAY_MS,
  get,
  pay,
  setupSecurePaymentsApp,
  shop,
  t,
} from '../../../test/secure-payments.ts';
import { requests } from '../../db/schema.ts';
import { applyPayment, reversePayment } from '../../requests/settle.ts';
import { completeLinkIfPaid, reopenLinkIfUnpaid } from '../../secure-payments/completion.ts';

/**
 * Multicall payouts at their edges: a reorganisation taking a child's payment back, creations
 * racing for a child, and the lookup row's hint for a child a parent already holds.
 */

setupSecurePaymentsApp();

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

describe('chain and token on a multicall parent', () => {
  const fromArbitrum = { wallet: CREATOR, chain: 'ARBITRUM', token: 'USDT' };

  it('needs them when the children are on several networks, naming chain', async () => {
    const base = await payout();
    const sepolia = await payout({ network: 'sepolia', currency: 'FAU-sepolia' });
    const { token } = await multicall([base.token, sepolia.token]);
    const res = await pay(token, { wallet: CREATOR });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'chain', message: expect.stringContaining('(base, sepolia)') }],
    });
  });

  it('refuses them on a parent made evm_same_chain, and on one past the cross-chain cap', async () => {
    const children = await Promise.all(Array.from({ length: 21 }, () => payout({ amount: '1' })));
    const sameChain = await multicall(
      children.slice(0, 2).map((child) => child.token),
      { requestedExecutionKind: 'evm_same_chain' },
    );
    const made = await pay(sameChain.token, fromArbitrum);
    expect(made.statusCode, made.body).toBe(400);
    expect(made.json()).toMatchObject({
      code: 'crosschain_unavailable',
      message: expect.stringContaining('created evm_same_chain'),
    });
    // Left open, one network, 21 children: paid on its network, never as 21 routes.
    const many = await multicall(
      children
        .slice(2)
        .map((child) => child.token)
        .concat((await payout({ amount: '1' })).token, (await payout({ amount: '1' })).token),
    );
    const past = await pay(many.token, fromArbitrum);
    expect(past.statusCode, past.body).toBe(400);
    expect(past.json()).toMatchObject({
      code: 'crosschain_unavailable',
      message: expect.stringContaining('at most 20 children; this one has 21'),
    });
  });
});
