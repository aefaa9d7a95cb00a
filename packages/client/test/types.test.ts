import { describe, expectTypeOf, it } from 'vitest';
import {
  type CreatedRequest,
  type CreatedWebhook,
  createClient,
  type ErrorEnvelope,
  type PayreqClient,
  type RequestStatus,
  type SecurePayment,
  type SecurePaymentLink,
  type WebhookEvent,
} from '../src/index.ts';

/**
 * The types of the fields the client's users read (the README's examples, client.test.ts),
 * pinned. `tsc --noEmit` checks this file in `npm test`: regenerating src/schema.ts after a
 * server change that gives one of these fields another type fails the compile here
 * (test/type-probe.test.ts shows it does), and the drift test fails until it is regenerated.
 */

/** What a caller writes; never run, only compiled. */
async function readsAsCallersDo(payreq: PayreqClient, destinationId: string) {
  const created = await payreq.POST('/v2/secure-payments', {
    body: { requests: [{ destinationId, amount: '25' }] },
  });
  if (created.data === undefined) {
    expectTypeOf(created.error).toExtend<ErrorEnvelope | undefined>();
    return;
  }
  expectTypeOf(created.data.token).toEqualTypeOf<string>();
  expectTypeOf(created.data.requestIds).toEqualTypeOf<string[]>();
  expectTypeOf(created.data.securePaymentUrl).toEqualTypeOf<string>();
  const read = await payreq.GET('/v2/secure-payments/{token}', {
    params: { path: { token: created.data.token } },
  });
  // One request, a batch or a multicall: `paymentType` tells which.
  if (read.data?.paymentType === 'single') expectTypeOf(read.data.amount).toEqualTypeOf<string>();
  const request = await payreq.GET('/v2/request/{requestId}', {
    params: { path: { requestId: created.data.requestIds[0] ?? '' } },
  });
  expectTypeOf(request.data?.hasBeenPaid).toEqualTypeOf<boolean | undefined>();
}

describe('the client types', () => {
  it('pins the fields callers read', () => {
    expectTypeOf(readsAsCallersDo).returns.resolves.toBeVoid();
    expectTypeOf(createClient).returns.toEqualTypeOf<PayreqClient>();
    expectTypeOf<SecurePaymentLink['token']>().toEqualTypeOf<string>();
    expectTypeOf<SecurePaymentLink['requestIds']>().toEqualTypeOf<string[]>();
    expectTypeOf<
      Extract<SecurePayment, { paymentType: 'single' }>['amount']
    >().toEqualTypeOf<string>();
    expectTypeOf<SecurePayment['status']>().not.toBeNever();
    expectTypeOf<CreatedRequest['requestId']>().toEqualTypeOf<string>();
    expectTypeOf<CreatedRequest['paymentReference']>().toEqualTypeOf<string>();
    expectTypeOf<RequestStatus['hasBeenPaid']>().toEqualTypeOf<boolean>();
    expectTypeOf<RequestStatus['expectedAmount']>().toEqualTypeOf<string>();
    expectTypeOf<CreatedWebhook['secret']>().toEqualTypeOf<string>();
    expectTypeOf<ErrorEnvelope['statusCode']>().toEqualTypeOf<number>();
  });

  it('narrows a webhook event by its name', () => {
    const narrow = (event: WebhookEvent) => {
      if (event.event === 'payment.confirmed.checkout') {
        expectTypeOf(event.securePaymentToken).toEqualTypeOf<string | undefined>();
        expectTypeOf(event.totalAmountPaid).toEqualTypeOf<string>();
      }
      if (event.event === 'compliance.updated') {
        expectTypeOf(event.isCompliant).toEqualTypeOf<boolean>();
      }
    };
    expectTypeOf(narrow).parameter(0).toEqualTypeOf<WebhookEvent>();
  });
});
