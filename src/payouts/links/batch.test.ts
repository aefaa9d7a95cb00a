import { inArray } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../../test/fixtures.ts';
import {
  CREATOR,
  expectBatchRefused,
  linkRow,
  OTHER,
  payout,
  postBatch,
  RECIPIENT,
  TRON_CREATOR,
} from '../../../test/payouts.ts';
import {
  apiKey,
  backend,
  badRequest,
  createLink,
  DAY_MS,
  destination,
  get,
  PAY_URL,
  pay,
  requestRows,
  rival,
  setLinkStatus,
  setupSecurePaymentsApp,
  shop,
  TRON_WALLET,
  t,
  validationFailed,
} from '../../../test/secure-payments.ts';
import { securePayments } from '../../db/schema.ts';
import { TRON_BATCH_MESSAGE } from '../../payments/calldata/batch.ts';
import {
  notPendingPayoutMessage,
  notSinglePayoutMessage,
  PAYOUT_CREATORS_MESSAGE,
  PAYOUT_NETWORKS_MESSAGE,
  unknownPayoutMessage,
} from './batch.ts';

/**
 * Batches of hosted payout links over HTTP on the real app: `POST
 * /v2/secure-payments/batch-payouts` and the list's `payout` flag, with every refusal's status
 * and exact message, and nothing written when refused.
 */

setupSecurePaymentsApp();

describe('POST /v2/secure-payments/batch-payouts', () => {
  it('answers 201 with a batch payout link over the links’ requests, and invalidates them', async () => {
    const first = await payout({ amount: '1.5' });
    const second = await payout({ amount: '2.25', recipient: OTHER });
    const res = await postBatch({
      tokens: [first.token, second.token.toLowerCase()],
      redirectUrl: 'https://shop.example/paid',
      redirectLabel: 'Done',
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([
      'feePlan',
      'requestIds',
      'securePaymentUrl',
      'token',
    ]);
    expect(body.securePaymentUrl).toBe(`${PAY_URL}/?token=${body.token}`);
    expect(body.requestIds).toEqual([...first.requestIds, ...second.requestIds]);
    expect(await linkRow(body.token)).toMatchObject({
      payout: true,
      creatorWallet: CREATOR,
      network: 'base',
      status: 'pending',
      redirectUrl: 'https://shop.example/paid',
      redirectLabel: 'Done',
    });
    for (const { token } of [first, second]) {
      expect((await linkRow(token))?.status).toBe('invalidated');
      const shown = await get(`/v2/secure-payments/${token}`, apiKey(shop));
      expect(shown.statusCode).toBe(403);
      expect(shown.json()).toMatchObject({
        code: 'secure_payment_invalidated',
        message: 'Secure payment is no longer valid',
      });
      expect((await pay(token, { wallet: CREATOR })).json().code).toBe(
        'secure_payment_invalidated',
      );
    }

    const shown = await get(`/v2/secure-payments/${body.token}`, apiKey(shop));
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.json()).toMatchObject({
      paymentType: 'batch',
      requestIds: body.requestIds,
      payees: [RECIPIENT, OTHER],
      amounts: ['1.5', '2.25'],
      paymentCurrencies: ['USDC-base', 'USDC-base'],
      payout: true,
      creatorWalletAddress: CREATOR,
    });
    const refused = await pay(body.token, { wallet: OTHER });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('payout_wallet_mismatch');
  });

  it('accepts a backend client ID of the account', async () => {
    const first = await payout();
    const second = await payout();
    const res = await postBatch({ tokens: [first.token, second.token] }, backend(shop));
    expect(res.statusCode, res.body).toBe(201);
  });

  it('returns 400 for fewer than 2 tokens and for a repeated token', async () => {
    const { token } = await payout();
    await expectBatchRefused(
      { tokens: [token] },
      validationFailed([{ field: 'tokens', message: 'must NOT have fewer than 2 items' }]),
    );
    await expectBatchRefused(
      { tokens: [] },
      validationFailed([{ field: 'tokens', message: 'must NOT have fewer than 2 items' }]),
    );
    await expectBatchRefused(
      { tokens: [token, token.toLowerCase()] },
      validationFailed([{ field: 'tokens[1]', message: 'repeats a token' }]),
    );
  });

  it('returns 400 naming an unknown token, or another account’s', async () => {
    const { token } = await payout();
    const unknown = '01KAAAAAAAAAAAAAAAAAAAAAAA';
    await expectBatchRefused(
      { tokens: [token, unknown] },
      badRequest(unknownPayoutMessage(unknown), 'unknown_payout_link'),
    );
    expect(unknownPayoutMessage(unknown)).toBe(`Payout link ${unknown} not found`);
    const theirs = await payout({}, rival);
    await expectBatchRefused(
      { tokens: [token, theirs.token] },
      badRequest(`Payout link ${theirs.token} not found`, 'unknown_payout_link'),
    );
  });

  it('returns 400 naming an incoming link or a batch payout link', async () => {
    const a = await payout();
    const b = await payout();
    const dest = await destination(shop);
    const incoming = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
    await expectBatchRefused(
      { tokens: [a.token, incoming.token] },
      badRequest(notSinglePayoutMessage(incoming.token), 'not_single_payout'),
    );
    expect(notSinglePayoutMessage(incoming.token)).toBe(
      `Secure payment ${incoming.token} is not a single payout link`,
    );
    const batch = (await postBatch({ tokens: [a.token, b.token] })).json();
    const c = await payout();
    await expectBatchRefused(
      { tokens: [c.token, batch.token] },
      badRequest(`Secure payment ${batch.token} is not a single payout link`, 'not_single_payout'),
    );
  });

  it('returns 400 naming a link that is not pending: merged already, completed or expired', async () => {
    const a = await payout();
    const b = await payout();
    expect((await postBatch({ tokens: [a.token, b.token] })).statusCode).toBe(201);
    const c = await payout();
    await expectBatchRefused(
      { tokens: [c.token, a.token] },
      badRequest(
        `Payout link ${a.token} is invalidated; only pending payout links can be batched`,
        'payout_link_not_pending',
      ),
    );
    const done = await payout();
    await setLinkStatus(done.token, { status: 'completed', completedAt: t.clock.now() });
    await expectBatchRefused(
      { tokens: [c.token, done.token] },
      badRequest(notPendingPayoutMessage(done.token, 'completed'), 'payout_link_not_pending'),
    );
    const old = await payout();
    await setLinkStatus(old.token, { expiresAt: new Date(t.clock.now().getTime() - DAY_MS) });
    await expectBatchRefused(
      { tokens: [old.token, c.token] },
      badRequest(notPendingPayoutMessage(old.token, 'expired'), 'payout_link_not_pending'),
    );
  });

  it('returns 400 for links on different networks, with different creators, or on Tron', async () => {
    const onBase = await payout();
    const onOptimism = await payout({ network: 'optimism', currency: 'USDC-optimism' });
    await expectBatchRefused(
      { tokens: [onBase.token, onOptimism.token] },
      badRequest(PAYOUT_NETWORKS_MESSAGE, 'payout_networks_differ'),
    );
    expect(PAYOUT_NETWORKS_MESSAGE).toBe('All payout links of a batch must be on the same network');
    const otherCreator = await payout({ creatorWalletAddress: OTHER });
    await expectBatchRefused(
      { tokens: [onBase.token, otherCreator.token] },
      badRequest(PAYOUT_CREATORS_MESSAGE, 'payout_creators_differ'),
    );
    expect(PAYOUT_CREATORS_MESSAGE).toBe(
      'All payout links of a batch must have the same creatorWalletAddress',
    );
    const tron = () =>
      payout({
        recipient: TRON_WALLET,
        creatorWalletAddress: TRON_CREATOR,
        network: 'tron',
        currency: 'USDT-tron',
      });
    const [t1, t2] = [await tron(), await tron()];
    await expectBatchRefused(
      { tokens: [t1.token, t2.token] },
      badRequest(TRON_BATCH_MESSAGE, 'tron_batch_not_supported'),
    );
    expect(TRON_BATCH_MESSAGE).toBe(
      'Batch payments are not supported for TRON networks. Please submit individual payment requests.',
    );
  });

  it('merges a link once when two batches race for it', async () => {
    const [a, b, c] = [await payout(), await payout(), await payout()];
    const answers = await Promise.all([
      postBatch({ tokens: [a.token, b.token] }),
      postBatch({ tokens: [c.token, b.token] }),
    ]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([201, 400]);
    const refused = answers.find((res) => res.statusCode === 400);
    expect(refused?.json().code).toBe('payout_link_not_pending');
    const firstWon = answers[0]?.statusCode === 201;
    const won = (firstWon ? answers[0] : answers[1])?.json();
    // b's request went to the winner's batch; the loser's other link is untouched.
    const [row] = await requestRows(won.requestIds.slice(1));
    expect(row?.securePaymentId).toBe((await linkRow(won.token))?.id);
    expect((await linkRow(b.token))?.status).toBe('invalidated');
    expect((await linkRow((firstWon ? c : a).token))?.status).toBe('pending');
  });

  it('checks the redirect pair as link creation does', async () => {
    const [a, b] = [await payout(), await payout()];
    await expectBatchRefused(
      { tokens: [a.token, b.token], redirectUrl: 'javascript:alert(1)' },
      badRequest(
        'redirectUrl must be a safe http(s) URL with no script/HTML payload',
        'invalid_redirect_url',
      ),
    );
  });

  it('is refused to an orchestrator key (not among the reference’s credentials)', async () => {
    const res = await postBatch({ tokens: ['a', 'b'] }, { 'x-orchestrator-key': 'orc_x' });
    expect([401, 403]).toContain(res.statusCode);
  });
});

describe('GET /v2/secure-payments: payout links in the list', () => {
  let lister: Tenant;
  const made: { payouts: string[]; incoming: string[] } = { payouts: [], incoming: [] };

  beforeAll(async () => {
    lister = await createTenant(t.db, 'Payout lister');
    const dest = await destination(lister);
    for (let i = 0; i < 2; i++) {
      t.clock.advance(60_000);
      made.payouts.push((await payout({}, lister)).token);
      t.clock.advance(60_000);
      made.incoming.push(
        (await createLink(lister, [{ destinationId: dest.destinationId, amount: '1' }])).token,
      );
    }
  });

  const list = (query: string) => get(`/v2/secure-payments?${query}`, apiKey(lister));
  const tokensOf = (res: { json(): { securePayments: { token: string }[] } }) =>
    res.json().securePayments.map((p) => p.token);

  it('carries payout: true on payout links and filters on payout=true|false', async () => {
    const all = await list('limit=100');
    expect(all.statusCode, all.body).toBe(200);
    for (const item of all.json().securePayments as { token: string; payout: boolean }[]) {
      expect(item.payout).toBe(made.payouts.includes(item.token));
    }
    expect(tokensOf(await list('payout=true'))).toEqual([...made.payouts].reverse());
    expect(tokensOf(await list('payout=false'))).toEqual([...made.incoming].reverse());
  });

  it('lists a batch payout and its invalidated links as payouts', async () => {
    const batch = await postBatch({ tokens: made.payouts }, apiKey(lister));
    expect(batch.statusCode, batch.body).toBe(201);
    const items = (await list('payout=true')).json().securePayments as {
      token: string;
      status: string;
      paymentType: string;
      requestIds: string[];
    }[];
    expect(items.map((i) => [i.token, i.status, i.paymentType])).toEqual([
      [batch.json().token, 'pending', 'batch'],
      ...[...made.payouts].reverse().map((token) => [token, 'invalidated', 'single']),
    ]);
    expect(items[0]?.requestIds).toEqual(batch.json().requestIds);
    // The lookup of a merged request finds the batch it now belongs to.
    const [requestId] = batch.json().requestIds;
    const lookup = await list(`requestId=${requestId}`);
    expect(lookup.json()).toMatchObject({ token: batch.json().token, payout: true });
    const rows = await t.db
      .select({ token: securePayments.token })
      .from(securePayments)
      .where(inArray(securePayments.token, made.payouts));
    expect(rows).toHaveLength(2);
  });
});
