import type { Database } from '../db/client.ts';
import { type Audience, enqueue, targetWebhooks } from '../webhooks/outbox.ts';

/**
 * `secure_payment.user_event` (api-facts §1.6): what the payer did in their wallet on the pay
 * page, as the page reports it. Best effort and unverified: the browser says it, so it is never
 * a settlement signal; payments are still known only from the chain.
 */

export const USER_EVENTS = [
  'wallet_connected',
  'payment_sent_to_wallet',
  'payment_approved_in_wallet',
] as const;
export type UserEvent = (typeof USER_EVENTS)[number];

export interface UserEventPayload {
  readonly event: 'secure_payment.user_event';
  readonly userEvent: UserEvent;
  readonly securePaymentToken: string;
  /** Only when the link holds exactly one request. */
  readonly requestId?: string;
  readonly requestIds: readonly string[];
  /** The orchestrator linked to the client ID the link was made with, if any. */
  readonly orchestratorId: string | null;
  /** When it happened, by the browser's clock. */
  readonly occurredAt: string;
  /** When payreq received it, by its own clock. */
  readonly timestamp: string;
  /** As the page sent them; never a wallet address in clear (`wallet_address_hashed`). */
  readonly properties: Readonly<Record<string, string>>;
}

export function userEventPayload(input: {
  readonly userEvent: UserEvent;
  readonly token: string;
  readonly requestIds: readonly string[];
  readonly orchestratorId: string | null;
  readonly occurredAt: Date;
  readonly receivedAt: Date;
  readonly properties: Readonly<Record<string, string>>;
}): UserEventPayload {
  const [only] = input.requestIds;
  return {
    event: 'secure_payment.user_event',
    userEvent: input.userEvent,
    securePaymentToken: input.token,
    ...(input.requestIds.length === 1 && only !== undefined && { requestId: only }),
    requestIds: input.requestIds,
    orchestratorId: input.orchestratorId,
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
