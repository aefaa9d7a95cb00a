import { type VerifyInput, type VerifyResult, verifyWebhook } from './verify.ts';
import type { WebhookEvent } from './webhook-events.ts';

/**
 * For receivers: the verifier and the typed events, without the HTTP client (this entry needs
 * nothing but `node:crypto`). `readWebhook` checks a delivery and, when it is genuine, hands
 * back its body as a `WebhookEvent`, whose `event` field tells which payload it is.
 */

export {
  DEFAULT_TOLERANCE_SECONDS,
  type VerifyInput,
  type VerifyResult,
  verifyWebhook,
} from './verify.ts';
export type {
  ClientIdLinkedEvent,
  CommercePaymentEvent,
  ComplianceUpdatedEvent,
  KytScreeningCompletedEvent,
  OfframpConfirmedEvent,
  OfframpFailedEvent,
  OfframpProcessingEvent,
  PaymentDetailUpdatedEvent,
  PaymentEvent,
  PaymentFailedEvent,
  PaymentRefundedEvent,
  RequestRecurringEvent,
  SecurePaymentAccessRejectedEvent,
  SecurePaymentUserEvent,
  WebhookEvent,
  WebhookEventType,
} from './webhook-events.ts';

export type ReadResult =
  | (Extract<VerifyResult, { ok: true }> & { readonly event: WebhookEvent })
  | Extract<VerifyResult, { ok: false }>;

/**
 * Verifies a delivery, then parses its body. The body is payreq's JSON exactly as signed, so
 * once the signature holds it is one of the payloads `WebhookEvent` describes; narrow it with
 * `switch (result.event.event)`.
 */
export function readWebhook(input: VerifyInput): ReadResult {
  const check = verifyWebhook(input);
  if (!check.ok) return check;
  const text = typeof input.rawBody === 'string' ? input.rawBody : input.rawBody.toString('utf8');
  // The signature proves payreq wrote these bytes, and payreq writes only these payloads.
  const event = JSON.parse(text) as WebhookEvent;
  return { ...check, event };
}
