import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import {
  feeLegPayments,
  feeLegs,
  payments,
  requests,
  webhookDeliveries,
  webhooks,
} from '../db/schema.ts';
import { createOrchestrator } from '../orchestrators/orchestrators.ts';
import { searchColumnsOf } from '../payments/records.ts';
import { referenceTopic } from '../payments/references.ts';

/**
 * payreq's own hops in a journey, from rows written as detection and the outbox write them: a
 * payment, its fee leg's payment, and the deliveries that report it (the account's, and an
 * orchestrator's endpoint the merchant must not see).
 */

const PAYEE = '0x4838B106FCe9647Bdf1E7877BF73cE8B0BAD5f97';
const PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const FEE_RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const TX = `0x${'ab'.repeat(32)}`;

let t: TestApp;
let shop: Tenant;

beforeAll(async () => {
  t = await createTestApp();
  shop = await createTenant(t.db, 'Shop');
});
afterAll(() => t.close());

const key = () => ({ 'x-api-key': shop.apiKey });

describe('payreq’s hops in a journey', () => {
  it('shows a payment, its fee leg and the account’s webhooks in order, and no orchestrator’s', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: key(),
      payload: {
        amount: '25',
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
        payee: PAYEE,
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { requestId } = created.json();
    const [request] = await t.db.select().from(requests).where(eq(requests.requestId, requestId));
    if (!request) throw new Error('no request');
    const journey = await t.app.inject({
      method: 'POST',
      url: '/v2/journey',
      headers: key(),
      payload: { requestId },
    });
    expect(journey.statusCode, journey.body).toBe(201);

    const detectedAt = new Date(request.createdAt.getTime() + 60_000);
    const [payment] = await t.db
      .insert(payments)
      .values({
        accountId: shop.accountId,
        requestRowId: request.id,
        ...searchColumnsOf(request),
        network: 'base',
        txHash: TX,
        logIndex: 2,
        blockNumber: 1234n,
        blockHash: `0x${'cd'.repeat(32)}`,
        amount: 25_000_000n,
        feeAmount: 0n,
        payee: PAYEE,
        payerAddress: PAYER,
        paymentReference: request.paymentReference,
        timestamp: new Date(detectedAt.getTime() - 4_000),
        createdAt: detectedAt,
      })
      .returning();
    if (!payment) throw new Error('no payment');
    const feeReference = '00112233aabbccdd';
    const [leg] = await t.db
      .insert(feeLegs)
      .values({
        requestRowId: request.id,
        position: 0,
        feeRequestId: `01${'ef'.repeat(32)}`,
        type: 'protocol_fee',
        label: 'Protocol fee',
        feeBearer: 'payer',
        network: 'base',
        currency: 'USDC-base',
        recipient: FEE_RECIPIENT,
        amount: 250_000n,
        salt: 'aa'.repeat(8),
        paymentReference: feeReference,
        referenceTopic: referenceTopic(feeReference),
      })
      .returning();
    if (!leg) throw new Error('no fee leg');
    await t.db.insert(feeLegPayments).values({
      feeLegId: leg.id,
      network: 'base',
      txHash: TX,
      logIndex: 3,
      blockNumber: 1234n,
      amount: 250_000n,
      payerAddress: PAYER,
      timestamp: payment.timestamp,
      createdAt: detectedAt,
    });
    const { orchestratorId } = await createOrchestrator(t.db, 'Platform');
    await t.db.insert(webhooks).values([
      {
        id: 'whk_own',
        accountId: shop.accountId,
        url: 'https://shop.example/h',
        secretSealed: 'x',
      },
      { id: 'whk_platform', orchestratorId, url: 'https://platform.example/h', secretSealed: 'x' },
    ]);
    // Stamped by the app's clock as detection's round began: before the payment's own time.
    const queuedAt = new Date(detectedAt.getTime() - 2_000);
    await t.db.insert(webhookDeliveries).values(
      ['whk_own', 'whk_platform'].map((webhookId, i) => ({
        id: `01JDX0000000000000000000${i}${i}`,
        webhookId,
        event: 'payment.confirmed',
        body: '{}',
        paymentId: payment.id,
        status: 'delivered' as const,
        attempts: 1,
        lastStatusCode: 200,
        deliveredAt: detectedAt,
        nextAttemptAt: queuedAt,
        createdAt: queuedAt,
      })),
    );

    const read = await t.app.inject({
      method: 'GET',
      url: `/v2/journey/${journey.json().journeyId}`,
      headers: key(),
    });
    expect(read.statusCode, read.body).toBe(200);
    const events = read.json().events;
    expect(events).toEqual([
      expect.objectContaining({ stepIndex: 0, type: 'request_created' }),
      {
        id: `payment:${payment.id}`,
        stepIndex: 1,
        source: 'payreq',
        type: 'payment_detected',
        status: 'detected',
        amount: '25',
        currency: 'USDC-base',
        processedAt: detectedAt.toISOString(),
        txReference: TX,
        rawPayload: {
          network: 'base',
          blockNumber: '1234',
          blockTimestamp: payment.timestamp.toISOString(),
          logIndex: 2,
          payee: PAYEE,
          payerAddress: PAYER,
          payerEoaAddress: null,
          feeAmount: '0',
        },
      },
      expect.objectContaining({
        stepIndex: 2,
        type: 'fee_leg_paid',
        status: 'detected',
        amount: '0.25',
        currency: 'USDC-base',
        txReference: TX,
        processedAt: detectedAt.toISOString(),
        rawPayload: expect.objectContaining({
          feeType: 'protocol_fee',
          label: 'Protocol fee',
          recipient: FEE_RECIPIENT,
          blockNumber: '1234',
        }),
      }),
      {
        id: 'webhook:01JDX000000000000000000000',
        stepIndex: 3,
        source: 'payreq',
        type: 'webhook_sent',
        status: 'delivered',
        amount: null,
        currency: null,
        // Never before the payment it reports.
        processedAt: detectedAt.toISOString(),
        txReference: null,
        rawPayload: {
          event: 'payment.confirmed',
          queuedAt: queuedAt.toISOString(),
          webhookId: 'whk_own',
          deliveryId: '01JDX000000000000000000000',
          paymentId: payment.id,
          attempts: 1,
          lastStatusCode: 200,
          deliveredAt: detectedAt.toISOString(),
        },
      },
    ]);
    expect(read.body).not.toContain('whk_platform');
  });
});
