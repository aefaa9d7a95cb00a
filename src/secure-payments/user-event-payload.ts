import type { SecurePaymentUserEvent } from '../../packages/client/src/webhook-events.ts';
import type { Database } from '../db/client.ts';
import { type Audience, enqueue, targetWebhooks } from '../webhooks/outbox.ts';

/**
 * `secure_payment.user_event` (api-facts §1.6, webhooks-0.31 `SecurePaymentUserEvent`): what
 * the payer did in their wallet on the pay page, as the page reports it. Best effort and
 * unverified: the browser says it, so it is never a settlement signal; payments are still
 * known only from the chain.
 */

export const USER_EVENTS = [
  'wallet_connected',
  'payment_sent_to_wallet',
  'payment_approved_in_wallet',
] as const;
export type UserEvent = (typeof USER_EVENTS)[number];

/**
 * The properties the reference documents for this event (api-facts §1.6 and the contract's
 * fixture); any other name a page sends is dropped before anything is stored or forwarded, so
 * a link token is not a way to push free text to every merchant endpoint.
 */
export const USER_EVENT_PROPERTIES = [
  'wallet_provider',
  'payment_submission_id',
  'payment_submission_id_type',
  'selected_source_chain',
  'payment_type',
  'wallet_address_hashed',
] as const;

/** A property's value, as 0.31.0's `/events` body allows it. */
export type UserEventValue = string | number | boolean | readonly string[] | null;
export type UserEventProperties = Readonly<Record<string, UserEventValue>>;

/** The webhook's body (the client package's type), naming only the documented events. */
type UserEventPayload = SecurePaymentUserEvent & { readonly userEvent: UserEvent };

export function userEventPayload(input: {
  readonly userEvent: UserEvent;
  readonly token: string;
  readonly requestIds: readonly string[];
  readonly clientId: string | null;
  readonly orchestratorId: string | null;
  readonly occurredAt: Date;
  readonly receivedAt: Date;
  readonly properties: UserEventProperties;
}): UserEventPayload {
  const [only] = input.requestIds;
  return {
    event: 'secure_payment.user_event',
    userEvent: input.userEvent,
    securePaymentToken: input.token,
    ...(input.requestIds.length === 1 && only !== undefined && { requestId: only }),
    requestIds: input.requestIds,
    ...(input.clientId !== null && { clientId: input.clientId }),
    ...(input.orchestratorId !== null && { orchestratorId: input.orchestratorId }),
    occurredAt: input.occurredAt.toISOString(),
    timestamp: input.receivedAt.toISOString(),
    properties: input.properties,
  };
}

/** One delivery per endpoint that hears of the link's payments; their ids. */
export async function enqueueUserEvent(
  db: Database,
  now: Date,
  audience: Audience,
  payload: UserEventPayload,
): Promise<string[]> {
  const { event, ...rest } = payload;
  return enqueue(db, now, await targetWebhooks(db, audience), [{ event, payload: rest }]);
}
