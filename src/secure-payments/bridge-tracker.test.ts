import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregatorConfig, startFake } from '../../test/aggregator.ts';
import { post } from '../../test/multicall.ts';
import {
  apiKey,
  createLink,
  DAY_MS,
  destination,
  get,
  setupSecurePaymentsApp,
  shop,
  TRON_USDT,
  TRON_WALLET,
  t,
} from '../../test/secure-payments.ts';
import { createAggregator } from '../crosschain/aggregator.ts';
import { paymentIntents, payments, requests, webhookDeliveries } from '../db/schema.ts';
import { recordPayments } from '../detection/record.ts';
import type { FakeAggregator } from '../sandbox/aggregator/fake-aggregator.ts';
import { createSettlement } from '../workers/settlement.ts';
import { LIFI_SETTLEMENT } from './bridge-settlement.ts';
import {
  BRIDGE_NOT_DONE,
  BRIDGE_PARTIAL,
  type BridgeTracker,
  createBridgeTracker,
} from './bridge-tracker.ts';

/**
 * A payer's cross-chain transfer recorded with `POST /{token}/intent` (a `txHash` on another
 * network) and followed through the routing aggregator's status operation, a fake one over
 * real HTTP: each way it ends (delivered, failed, refunded, not done by its deadline), the
 * webhook each ending sends, the link payable throughout, the aggregator down holding the
 * transfer where it stands, and two trackers ending a transfer once.
 */

setupSecurePaymentsApp(['arbitrum-one']);

const PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
let fake: FakeAggregator;
let tracker: BridgeTracker;
let hash = 0;

/** Detection gets this long to see a delivered payment before the tracker settles it. */
const SETTLE_AFTER_MS = 10 * 60_000;

function trackerOf(aggregatorUrl: FakeAggregator): BridgeTracker {
  return createBridgeTracker({
    db: t.db,
    clock: t.clock,
    logger: pino({ level: 'silent' }),
    aggregator: createAggregator({
      config: aggregatorConfig(aggregatorUrl, { breakerFailures: 100 }),
    }),
    chains: t.chains,
    sink: createSettlement({ chains: t.chains }),
    settleAfterMs: SETTLE_AFTER_MS,
  });
}

beforeAll(async () => {
  fake = await startFake();
  tracker = trackerOf(fake);
  const hook = await post('/v1/webhook', { url: 'https://hooks.example/payreq' }, apiKey(shop));
  expect(hook.statusCode, hook.body).toBe(201);
});
afterAll(async () => {
  await tracker?.stop();
  await fake?.close();
});

/** A 25 USDC link on Base, and a transfer toward it recorded from Arbitrum. */
async function bridged(extra: Record<string, unknown> = {}) {
  const dest = await destination(shop);
  const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '25' }]);
  hash += 1;
  const txHash = `0x${hash.toString(16).padStart(64, '0')}`;
  const res = await post(
    `/v2/secure-payments/${link.token}/intent`,
    {
      chain: 'ARBITRUM',
      token: 'USDC',
      txHash,
      executionKind: 'evm_cross_chain',
      payerAddress: PAYER,
      sourceToken: 'USDT',
      sourceAmount: '25.06',
      routeKind: 'crosschain',
      bridgeTool: 'across',
      ...extra,
    },
    apiKey(shop),
  );
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toEqual({
    intentId: expect.any(String),
    paymentReference: expect.stringMatching(/^0x[0-9a-f]{16}$/),
    txHash,
    isListening: true,
    payerAddress: PAYER,
  });
  return { ...link, txHash, intentId: res.json().intentId as string };
}

async function intentRow(id: string) {
  const [row] = await t.db.select().from(paymentIntents).where(eq(paymentIntents.id, id));
  if (!row) throw new Error(`no intent ${id}`);
  return row;
}

/** The bodies of `event` queued for a request. */
async function queued(event: string, requestId: string | undefined) {
  const rows = await t.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.event, event));
  return rows
    .map((row) => JSON.parse(row.body) as Record<string, unknown>)
    .filter((body) => body.requestId === requestId);
}

describe('a cross-chain transfer recorded as an intent', () => {
  it('stays bridging while pending, the link payable; then delivered, with the receiving hash', async () => {
    const link = await bridged();
    expect(await intentRow(link.intentId)).toMatchObject({
      kind: 'bridge',
      status: 'bridging',
      network: 'arbitrum-one',
      bridgeDeadline: new Date(t.clock.now().getTime() + DAY_MS),
    });
    expect((await get(`/v2/secure-payments/${link.token}`, apiKey(shop))).statusCode).toBe(200);

    await tracker.round();
    expect((await intentRow(link.intentId)).status).toBe('bridging');
    fake.setTransfer(link.txHash, { status: 'PENDING' });
    await tracker.round();
    expect((await intentRow(link.intentId)).status).toBe('bridging');

    const receiving = `0x${'ee'.repeat(32)}`;
    fake.setTransfer(link.txHash, { status: 'DONE', receivingTxHash: receiving });
    await tracker.round();
    expect(await intentRow(link.intentId)).toMatchObject({
      status: 'delivered',
      receivingTxHash: receiving,
      deliveredAt: t.clock.now(),
      endedAt: null,
    });
    expect(await queued('payment.failed', link.requestIds[0])).toEqual([]);
    const asked = fake.received.filter((r) => r.path === '/v1/status');
    expect(asked.at(-1)?.query).toMatchObject({
      txHash: link.txHash,
      fromChain: '42161',
      toChain: '8453',
      bridge: 'across',
    });
  });

  it('settles a delivery detection has not seen in time on the aggregator’s word, once', async () => {
    const link = await bridged();
    const receiving = `0x${'ef'.repeat(32)}`;
    fake.setTransfer(link.txHash, { status: 'DONE', receivingTxHash: receiving });
    await tracker.round();
    // Detection's time to see it on Base: nothing is settled yet.
    t.clock.advance(SETTLE_AFTER_MS - 1_000);
    await tracker.round();
    expect((await intentRow(link.intentId)).status).toBe('delivered');
    expect(await queued('payment.confirmed', link.requestIds[0])).toEqual([]);

    t.clock.advance(1_000);
    await tracker.round();
    await tracker.round();
    expect(await intentRow(link.intentId)).toMatchObject({
      status: 'executed',
      endedAt: t.clock.now(),
    });
    const status = await get(`/v2/request/${link.requestIds[0]}`, apiKey(shop));
    expect(status.json()).toMatchObject({ hasBeenPaid: true, txHash: receiving });
    const [row] = await t.db.select().from(payments).where(eq(payments.txHash, receiving));
    expect(row).toMatchObject({
      amount: 25_000_000n,
      detectionSource: 'lifi',
      note: LIFI_SETTLEMENT.note,
      payerAddress: PAYER,
      network: 'base',
      sourceNetwork: 'arbitrum-one',
      sourceTxHash: link.txHash,
    });
    // Shown as the cross-chain payment it is, settled on the aggregator's word.
    expect(status.json().payments).toEqual([
      expect.objectContaining({
        type: 'crosschain',
        sourceNetwork: 'arbitrum-one',
        destinationNetwork: 'base',
        sourceTxHash: link.txHash,
        destinationTxHash: receiving,
        detectionSource: 'lifi',
        note: LIFI_SETTLEMENT.note,
      }),
    ]);
    expect(await queued('payment.confirmed', link.requestIds[0])).toEqual([
      expect.objectContaining({
        amount: '25',
        txHash: receiving,
        payerAddress: PAYER,
        detectionSource: 'lifi',
        note: LIFI_SETTLEMENT.note,
      }),
    ]);
    expect((await get(`/v2/secure-payments/${link.token}`, apiKey(shop))).statusCode).toBe(409);

    // Detection seeing the same delivery on chain later counts it no second time.
    const [request] = await t.db
      .select()
      .from(requests)
      .where(eq(requests.requestId, link.requestIds[0] ?? ''));
    if (!request || !row) throw new Error('no request or payment');
    const seen = await recordPayments(
      t.db,
      { sink: createSettlement({ chains: t.chains }), now: t.clock.now() },
      [
        {
          event: {
            network: 'base',
            txHash: row.txHash,
            logIndex: 7,
            blockNumber: 90n,
            blockHash: `0x${'90'.repeat(32)}`,
            timestamp: t.clock.now(),
            referenceTopic: request.referenceTopic ?? '',
            tokenAddress: row.tokenAddress,
            payee: row.payee,
            amount: row.amount,
            feeAmount: 0n,
            feeAddress: null,
            payerAddress: PAYER,
            payerEoaAddress: PAYER,
          },
          request,
          requestAmount: row.amount,
          requestFeeAmount: 0n,
        },
      ],
      { network: 'base', lastBlock: 90n, blocks: [] },
    );
    expect(seen).toBe(0);
    const after = await t.db.select().from(requests).where(eq(requests.id, request.id));
    expect(after[0]?.totalAmountPaid).toBe(25_000_000n);
  });

  it('names a cross-chain payment’s deposit: the one transfer under way, else the delivering one', async () => {
    const link = await bridged();
    hash += 1;
    const second = `0x${hash.toString(16).padStart(64, '0')}`;
    const again = await post(
      `/v2/secure-payments/${link.token}/intent`,
      {
        chain: 'ARBITRUM',
        token: 'USDC',
        txHash: second,
        executionKind: 'evm_cross_chain',
        payerAddress: PAYER,
        sourceToken: 'USDT',
        sourceAmount: '25.06',
        routeKind: 'crosschain',
        bridgeTool: 'across',
      },
      apiKey(shop),
    );
    expect(again.statusCode, again.body).toBe(200);
    const [request] = await t.db
      .select()
      .from(requests)
      .where(eq(requests.requestId, link.requestIds[0] ?? ''));
    const token = request ? t.chains.currency(request.paymentCurrency)?.address : undefined;
    if (!request || !token) throw new Error('no request');
    // Detection sees a fill from Arbitrum pay the link while two transfers are under way.
    const fill = `0x${'cd'.repeat(32)}`;
    const recorded = await recordPayments(
      t.db,
      { sink: createSettlement({ chains: t.chains }), now: t.clock.now() },
      [
        {
          event: {
            network: 'base',
            txHash: fill,
            logIndex: 3,
            blockNumber: 91n,
            blockHash: `0x${'91'.repeat(32)}`,
            timestamp: t.clock.now(),
            referenceTopic: request.referenceTopic ?? '',
            tokenAddress: token,
            payee: request.payee,
            amount: 25_000_000n,
            feeAmount: 0n,
            feeAddress: null,
            payerAddress: PAYER,
            payerEoaAddress: PAYER,
            bridge: { sourceNetwork: 'arbitrum-one', sourceTxHash: null },
          },
          request,
          requestAmount: 25_000_000n,
          requestFeeAmount: 0n,
        },
      ],
      { network: 'base', lastBlock: 91n, blocks: [] },
    );
    expect(recorded).toBe(1);
    const shown = async (query: string) =>
      (await get(`/v2/payments?requestId=${link.requestIds[0]}${query}`, apiKey(shop))).json()
        .payments;
    // Either could have paid: the deposit is not named yet.
    expect(await shown('&type=crosschain')).toEqual([
      expect.objectContaining({
        type: 'crosschain',
        sourceNetwork: 'arbitrum-one',
        destinationNetwork: 'base',
        sourceTxHash: null,
        destinationTxHash: fill,
        detectionSource: 'request-network',
        note: null,
      }),
    ]);
    expect(await shown('&type=direct')).toEqual([]);

    // The aggregator reports the second delivered by this fill: its deposit is the source.
    fake.setTransfer(second, { status: 'DONE', receivingTxHash: fill });
    await tracker.round();
    expect(await shown('&type=crosschain')).toEqual([
      expect.objectContaining({ sourceTxHash: second, destinationTxHash: fill }),
    ]);
    const [row] = await t.db.select().from(payments).where(eq(payments.txHash, fill));
    expect(row).toMatchObject({ sourceNetwork: 'arbitrum-one', sourceTxHash: second });
  });

  it('sends payment.failed when the bridge fails', async () => {
    const link = await bridged();
    fake.setTransfer(link.txHash, { status: 'FAILED', substatus: 'SLIPPAGE_EXCEEDED' });
    await tracker.round();
    const reason = 'bridge transfer failed (SLIPPAGE_EXCEEDED)';
    expect(await intentRow(link.intentId)).toMatchObject({
      status: 'failed',
      failureReason: reason,
    });
    expect(await queued('payment.failed', link.requestIds[0])).toEqual([
      expect.objectContaining({
        event: 'payment.failed',
        requestID: link.requestIds[0],
        subStatus: 'failed',
        failureReason: reason,
        txHash: link.txHash,
        network: 'arbitrum-one',
        payerAddress: PAYER,
        securePaymentToken: link.token,
        paymentProcessor: 'request-network',
      }),
    ]);
  });

  it('fails a transfer the bridge paid out in other tokens, never settling it', async () => {
    const link = await bridged();
    const receiving = `0x${'c7'.repeat(32)}`;
    fake.setTransfer(link.txHash, {
      status: 'DONE',
      receivingTxHash: receiving,
      substatus: 'PARTIAL',
    });
    await tracker.round();
    expect(await intentRow(link.intentId)).toMatchObject({
      status: 'failed',
      failureReason: BRIDGE_PARTIAL,
    });
    expect(await queued('payment.failed', link.requestIds[0])).toEqual([
      expect.objectContaining({ failureReason: BRIDGE_PARTIAL, txHash: link.txHash }),
    ]);
    // Long past the settling delay, the link is still unpaid and payable.
    t.clock.advance(SETTLE_AFTER_MS + 1_000);
    await tracker.round();
    expect(await t.db.select().from(payments).where(eq(payments.txHash, receiving))).toEqual([]);
    expect(await queued('payment.confirmed', link.requestIds[0])).toEqual([]);
    expect((await get(`/v2/secure-payments/${link.token}`, apiKey(shop))).statusCode).toBe(200);
  });

  it('sends payment.refunded when the bridge returns the funds; the link is payable again', async () => {
    const link = await bridged();
    const refund = `0x${'ab'.repeat(32)}`;
    fake.setTransfer(link.txHash, { status: 'REFUNDED', refundTxHash: refund });
    await tracker.round();
    expect(await intentRow(link.intentId)).toMatchObject({
      status: 'refunded',
      receivingTxHash: refund,
    });
    expect(await queued('payment.refunded', link.requestIds[0])).toEqual([
      expect.objectContaining({
        event: 'payment.refunded',
        paymentReference: expect.stringMatching(/^0x[0-9a-f]{16}$/),
        refundedTo: PAYER,
        // The aggregator named no amount: the source amount the payer sent.
        refundAmount: '25.06',
        currency: 'USDC-base',
        refundTxHash: refund,
      }),
    ]);
    expect((await get(`/v2/secure-payments/${link.token}`, apiKey(shop))).statusCode).toBe(200);
  });

  it('fails a transfer the aggregator has not seen done by its deadline', async () => {
    const link = await bridged();
    t.clock.advance(DAY_MS - 1_000);
    await tracker.round();
    expect((await intentRow(link.intentId)).status).toBe('bridging');
    t.clock.advance(1_000);
    await tracker.round();
    expect(await intentRow(link.intentId)).toMatchObject({
      status: 'failed',
      failureReason: BRIDGE_NOT_DONE,
    });
    expect(await queued('payment.failed', link.requestIds[0])).toHaveLength(1);
  });

  it('holds a transfer where it stands while the aggregator fails, and ends it after', async () => {
    const link = await bridged();
    fake.setTransfer(link.txHash, { status: 'FAILED' });
    fake.fail({ kind: 'error', status: 503 });
    await tracker.round();
    expect((await intentRow(link.intentId)).status).toBe('bridging');
    fake.recover();
    await tracker.round();
    expect((await intentRow(link.intentId)).status).toBe('failed');
  });

  it('is resumed by another process’s tracker when the one following it stops', async () => {
    const link = await bridged();
    const first = trackerOf(fake);
    await first.round();
    await first.stop();
    expect((await intentRow(link.intentId)).status).toBe('bridging');
    fake.setTransfer(link.txHash, { status: 'FAILED', substatus: 'EXPIRED' });
    // Nothing of the first but the database.
    await trackerOf(fake).round();
    expect(await intentRow(link.intentId)).toMatchObject({
      status: 'failed',
      failureReason: 'bridge transfer failed (EXPIRED)',
    });
    expect(await queued('payment.failed', link.requestIds[0])).toHaveLength(1);
  });

  it('is ended once by two trackers racing: one payment.failed', async () => {
    const link = await bridged();
    fake.setTransfer(link.txHash, { status: 'FAILED' });
    const other = trackerOf(fake);
    await Promise.all([tracker.round(), other.round()]);
    expect(await queued('payment.failed', link.requestIds[0])).toHaveLength(1);
  });
});

describe('recording a cross-chain transfer', () => {
  function intent(token: string, body: Record<string, unknown>) {
    return post(`/v2/secure-payments/${token}/intent`, body, apiKey(shop));
  }

  it('refuses what cannot be a transfer to this link, writing nothing', async () => {
    const dest = await destination(shop);
    const { token } = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
    const txHash = `0x${'12'.repeat(32)}`;
    const before = (await t.db.select().from(paymentIntents)).length;
    const sameChain = await intent(token, {
      chain: 'BASE',
      token: 'USDC',
      txHash,
      executionKind: 'evm_cross_chain',
    });
    expect(sameChain.statusCode).toBe(400);
    expect(sameChain.json().errors).toEqual([
      {
        field: 'executionKind',
        message: "evm_cross_chain names another network than the link's, not BASE",
      },
    ]);
    const deadline = Math.floor(t.clock.now().getTime() / 1000) + 60;
    const withDeadline = await intent(token, {
      chain: 'ARBITRUM',
      token: 'USDC',
      txHash,
      safePaymentDeadline: deadline,
    });
    expect(withDeadline.statusCode).toBe(400);
    const wrongToken = await intent(token, { chain: 'ARBITRUM', token: 'DAI', txHash });
    expect(wrongToken.statusCode).toBe(400);
    // A Safe on another network: Safe transactions are tracked on the link's own network only.
    const safe = await intent(token, {
      chain: 'ARBITRUM',
      token: 'USDC',
      safeTxHash: txHash,
    });
    expect(safe.statusCode).toBe(400);
    expect(safe.json().code).toBe('crosschain_unavailable');
    expect((await t.db.select().from(paymentIntents)).length).toBe(before);
  });

  it('refuses a source /pay would not route from, with /pay’s answer, writing nothing', async () => {
    const dest = await destination(shop);
    const { token } = await createLink(shop, [{ destinationId: dest.destinationId, amount: '2' }]);
    const before = (await t.db.select().from(paymentIntents)).length;
    const txHash = `0x${'56'.repeat(32)}`;
    // Polygon has no RPC here: /pay offers no route from it, so no transfer comes from it.
    for (const [chain, sourceToken] of [
      ['POLYGON', 'USDC'],
      // EURC has no contract here: no source either.
      ['ARBITRUM', 'EURC'],
    ] as const) {
      const res = await intent(token, {
        chain,
        token: 'USDC',
        txHash,
        executionKind: 'evm_cross_chain',
        sourceToken,
      });
      const pay = await get(
        `/v2/secure-payments/${token}/pay?wallet=${PAYER}&chain=${chain}&token=${sourceToken}`,
        apiKey(shop),
      );
      expect(res.statusCode, res.body).toBe(400);
      expect(pay.statusCode, pay.body).toBe(400);
      expect(res.json()).toEqual(pay.json());
      expect(res.json().message).toBe(
        `This link (USDC-base) cannot be paid from ${chain} ${sourceToken} on this server; its paymentOptions list the sources it can`,
      );
    }
    const other = await destination(shop);
    const batch = await createLink(shop, [
      { destinationId: dest.destinationId, amount: '1' },
      { destinationId: other.destinationId, amount: '1' },
    ]);
    const fromBatch = await intent(batch.token, {
      chain: 'ARBITRUM',
      token: 'USDC',
      txHash,
      executionKind: 'evm_cross_chain',
    });
    expect(fromBatch.statusCode, fromBatch.body).toBe(400);
    expect(fromBatch.json()).toMatchObject({
      code: 'crosschain_unavailable',
      message: 'Cross-chain payment of a batch link is not available yet; pay it on its network',
    });
    expect((await t.db.select().from(paymentIntents)).length).toBe(before);
  });

  it('answers a transfer sent again with its intent, and refuses it for another link', async () => {
    const first = await bridged();
    const again = await post(
      `/v2/secure-payments/${first.token}/intent`,
      {
        chain: 'ARBITRUM',
        token: 'USDC',
        txHash: first.txHash.toUpperCase().replace('0X', '0x'),
        executionKind: 'evm_cross_chain',
        payerAddress: PAYER,
      },
      apiKey(shop),
    );
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual({
      intentId: first.intentId,
      paymentReference: expect.stringMatching(/^0x[0-9a-f]{16}$/),
      txHash: first.txHash,
      isListening: true,
      payerAddress: PAYER,
    });
    const rows = await t.db
      .select()
      .from(paymentIntents)
      .where(eq(paymentIntents.txHash, first.txHash));
    expect(rows).toHaveLength(1);
    const display = await get(`/v2/secure-payments/${first.token}`, apiKey(shop));
    expect(display.json().bridgeTransfers).toEqual([{ txHash: first.txHash, status: 'bridging' }]);

    const dest = await destination(shop);
    const other = await createLink(shop, [{ destinationId: dest.destinationId, amount: '25' }]);
    const elsewhere = await intent(other.token, {
      chain: 'ARBITRUM',
      token: 'USDC',
      txHash: first.txHash,
      executionKind: 'evm_cross_chain',
    });
    expect(elsewhere.statusCode, elsewhere.body).toBe(409);
    expect(elsewhere.json()).toMatchObject({
      code: 'transfer_recorded_elsewhere',
      message: 'This transaction is recorded as a transfer to another link',
    });
    expect(
      await t.db.select().from(paymentIntents).where(eq(paymentIntents.txHash, first.txHash)),
    ).toHaveLength(1);
  });

  it('refuses a Tron link, which no bridge pays', async () => {
    const dest = await destination(shop, {
      walletAddress: TRON_WALLET,
      chainId: 728126428,
      tokenAddress: TRON_USDT,
    });
    const { token } = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
    const res = await intent(token, {
      chain: 'ARBITRUM',
      token: 'USDT',
      txHash: `0x${'34'.repeat(32)}`,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toContainEqual({
      field: 'chain',
      message: 'a link on tron cannot be paid from another network',
    });
  });
});
