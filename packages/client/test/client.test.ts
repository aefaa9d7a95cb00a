import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_EVENT_TYPES } from '../../../src/webhooks/events.ts';
import { startReceiver } from '../../../test/webhook-receiver.ts';
import { createClient, type PayreqClient, readWebhook } from '../src/index.ts';
import { type ClientRig, startRig } from './server.ts';
import { typeErrors } from './typecheck.ts';

/**
 * The client against a real payreq on a loopback port (test/server.ts): a payment link made,
 * read back, a request and its calldata, a webhook registered and a delivery verified and
 * narrowed by its event name. Every call goes over HTTP through openapi-fetch.
 */

let rig: ClientRig;
let payreq: PayreqClient;

beforeAll(async () => {
  rig = await startRig();
  payreq = createClient({ baseUrl: rig.baseUrl, apiKey: rig.apiKey });
});
afterAll(() => rig.close());

describe('@payreq/client against a real server', () => {
  it('creates a secure payment link and reads it back', async () => {
    const created = await payreq.POST('/v2/secure-payments', {
      body: { requests: [{ destinationId: rig.destinationId, amount: '25' }] },
    });
    expect(created.response.status).toBe(201);
    const link = created.data;
    if (link === undefined) throw new Error(`not created: ${JSON.stringify(created.error)}`);
    expect(link.requestIds).toHaveLength(1);
    expect(link.securePaymentUrl).toBe(`https://pay.payreq.test/?token=${link.token}`);

    const read = await payreq.GET('/v2/secure-payments/{token}', {
      params: { path: { token: link.token } },
    });
    expect(read.response.status).toBe(200);
    if (read.data?.paymentType !== 'single') throw new Error(`not one request: ${read.data}`);
    expect(read.data.amount).toBe('25');
    expect(read.data.destination?.walletAddress).toBe(rig.payee);
  });

  it('creates a request and gets the calldata its payer sends', async () => {
    const created = await payreq.POST('/v2/request', {
      body: {
        amount: '12.5',
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
        payee: rig.payee,
      },
    });
    expect(created.response.status).toBe(201);
    const requestId = created.data?.requestId ?? '';
    expect(requestId).not.toBe('');

    const status = await payreq.GET('/v2/request/{requestId}', {
      params: { path: { requestId } },
    });
    expect(status.data).toMatchObject({ requestId, hasBeenPaid: false });

    const pay = await payreq.GET('/v2/request/{requestId}/pay', {
      params: { path: { requestId } },
    });
    expect(pay.response.status).toBe(200);
    const calldata = pay.data;
    if (calldata === undefined || !('transactions' in calldata)) {
      throw new Error(`no calldata: ${JSON.stringify(pay.error)}`);
    }
    // A fresh payer has no allowance: approve the fee proxy, then pay through it.
    expect(calldata.transactions).toHaveLength(2);
    expect(calldata.metadata).toMatchObject({ stepsRequired: 2, needsApproval: true });
  });

  it('registers a webhook, and a delivery verifies and reads as its typed event', async () => {
    const receiver = await startReceiver();
    try {
      const registered = await payreq.POST('/v1/webhook', { body: { url: receiver.url } });
      expect(registered.response.status).toBe(201);
      const secret = registered.data?.secret ?? '';
      expect(secret).toMatch(/^whsec_/);

      const sent = await payreq.POST('/v1/webhook/test', {
        body: { eventType: 'payment.confirmed' },
      });
      expect(sent.data?.sent).toBe(1);
      const [delivery] = await receiver.waitFor(1);
      if (delivery === undefined) throw new Error('nothing delivered');

      const result = readWebhook({ rawBody: delivery.rawBody, headers: delivery.headers, secret });
      if (!result.ok) throw new Error(`refused: ${result.reason}`);
      expect(result.version).toBe('v2');
      expect(result.deliveryId).toBe(sent.data?.deliveryIds[0]);
      const { event } = result;
      if (event.event !== 'payment.confirmed' || event.isCryptoToFiat) {
        throw new Error(`unexpected ${event.event}`);
      }
      // Narrowed to an on-chain payment: its amounts are typed and filled.
      expect(event.totalAmountPaid).toBe('20');
      expect(event.paymentProcessor).toBe('request-network');

      const forged = readWebhook({
        rawBody: delivery.rawBody.replace('"20"', '"2000"'),
        headers: delivery.headers,
        secret,
      });
      expect(forged).toEqual({ ok: false, reason: 'bad_signature' });

      const removed = await payreq.DELETE('/v1/webhook/{id}', {
        params: { path: { id: registered.data?.id ?? '' } },
      });
      expect(removed.response.ok).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('answers errors in the typed envelope', async () => {
    const stranger = createClient({ baseUrl: rig.baseUrl, apiKey: 'rk_not-a-key' });
    const refused = await stranger.GET('/v2/request/{requestId}', {
      params: { path: { requestId: 'missing' } },
    });
    expect(refused.response.status).toBe(401);
    expect(refused.data).toBeUndefined();
    expect(refused.error?.statusCode).toBe(401);
  });
});

describe('the typed webhook events', () => {
  /** `delivered` as a TypeScript module that declares them `WebhookEvent`s. */
  const asEvents = (delivered: readonly unknown[]) => ({
    'test/delivered.ts': `import type { WebhookEvent } from '../src/webhook-events.ts';
export const delivered: readonly WebhookEvent[] = ${JSON.stringify(delivered, null, 2)};
`,
  });

  it('describe every kind the server delivers, field for field', async () => {
    const receiver = await startReceiver();
    try {
      const registered = await payreq.POST('/v1/webhook', { body: { url: receiver.url } });
      const secret = registered.data?.secret ?? '';
      for (const eventType of TEST_EVENT_TYPES) {
        const sent = await payreq.POST('/v1/webhook/test', { body: { eventType } });
        expect(sent.data?.sent, eventType).toBe(1);
      }
      const deliveries = await receiver.waitFor(TEST_EVENT_TYPES.length, 30_000);
      const events = deliveries.map((delivery) => {
        const result = readWebhook({
          rawBody: delivery.rawBody,
          headers: delivery.headers,
          secret,
        });
        if (!result.ok) throw new Error(`refused: ${result.reason}`);
        return result.event;
      });
      expect(new Set(events.map((event) => event.event))).toEqual(new Set(TEST_EVENT_TYPES));
      // The real bodies, as object literals typed WebhookEvent: a field the types lack, a
      // field of another type, or a kind they do not know fails the compile.
      expect(typeErrors(asEvents(events))).toEqual([]);
      // And the check bites: one amount sent as a number does not compile.
      const wrong = events.map((event) =>
        event.event === 'payment.confirmed' ? { ...event, amount: 10 } : event,
      );
      expect(typeErrors(asEvents(wrong)).join('\n')).toMatch(/delivered\.ts/);
    } finally {
      await receiver.close();
    }
  }, 180_000);
});
