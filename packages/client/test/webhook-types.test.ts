import { describe, expectTypeOf, it } from 'vitest';
import type { UserEventPayload } from '../../../src/secure-payments/user-event-payload.ts';
import type { PaymentEventPayload } from '../../../src/webhooks/events.ts';
import type {
  ComplianceUpdatedPayload,
  OfframpConfirmedPayload,
  OfframpFailedPayload,
  OfframpProcessingPayload,
  PaymentDetailUpdatedPayload,
} from '../../../src/webhooks/payer-payloads.ts';
import type {
  ComplianceUpdatedEvent,
  OfframpConfirmedEvent,
  OfframpFailedEvent,
  OfframpProcessingEvent,
  PaymentDetailUpdatedEvent,
  PaymentEvent,
  SecurePaymentUserEvent,
} from '../src/webhooks.ts';

/**
 * The client's webhook event types hold what the server's payload types say; compiled by
 * `tsc --noEmit` in `npm test` (beside the package, since it reaches into the server).
 */

describe('the webhook event types', () => {
  it('types each webhook payload as the server types it', () => {
    // The server's own payload types must fit the client's: a field the client declares
    // that the server drops, renames or retypes fails here (the server names `event` more
    // widely, hence its omission). Fields the server adds are caught by client.test.ts,
    // which compiles every kind's real delivery as a WebhookEvent.
    expectTypeOf<Omit<PaymentEventPayload, 'event'>>().toExtend<Omit<PaymentEvent, 'event'>>();
    expectTypeOf<ComplianceUpdatedPayload>().toExtend<ComplianceUpdatedEvent>();
    expectTypeOf<PaymentDetailUpdatedPayload>().toExtend<PaymentDetailUpdatedEvent>();
    expectTypeOf<OfframpProcessingPayload>().toExtend<OfframpProcessingEvent>();
    expectTypeOf<OfframpConfirmedPayload>().toExtend<OfframpConfirmedEvent>();
    expectTypeOf<OfframpFailedPayload>().toExtend<OfframpFailedEvent>();
    expectTypeOf<UserEventPayload>().toExtend<SecurePaymentUserEvent>();
  });
});
