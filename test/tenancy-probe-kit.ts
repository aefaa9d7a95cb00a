import type { Hex } from 'viem';

/**
 * The tenant isolation matrix (test/e2e/tenancy.test.ts): the credentials each tenant holds, the
 * objects of A's that a probe names, and what a probe says B must get when it names them (the
 * probes themselves: tenancy-probes.ts and tenancy-probes-accounts.ts).
 */

export const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

export const KINDS = [
  'apiKey',
  'clientId',
  'session',
  'orchestratorKey',
  'orchestratorPair',
  /** B's orchestrator key with A's client ID, which is not linked to it. */
  'foreignPair',
] as const;
export type Kind = (typeof KINDS)[number];

export interface Tenant {
  readonly name: string;
  readonly accountId: string;
  readonly wallet: string;
  readonly walletKey: Hex;
  readonly orchestratorId: string;
  readonly headers: Record<Kind, Record<string, string>>;
  /** The client ID of the `clientId` credential (webhooks registered with it are its own). */
  readonly clientId: string;
}

/** A's objects that one probe names. Mutating probes get a fresh set each. */
export interface Objects {
  readonly token: string;
  readonly requestId: string;
  /** A's journey of that request. */
  readonly journeyId: string;
  /** The original of A's recurring request (the only kind PATCH /v2/request changes). */
  readonly recurringRequestId: string;
  /** Its payment reference (0x and 16 hex digits): the v1 operations' key. */
  readonly recurringPaymentReference: string;
  /** A's commerce payment (made with A's API key, the server's operator, not authorized). */
  readonly commerceRequestId: string;
  /** Its pay token: the buyer's capability on the pay page (`?commerce=`). */
  readonly commercePayToken: string;
  /** A's payer (`/v2/payer`), its `userId`, its bank details' id and its (personal) e-mail. */
  readonly clientUserId: string;
  readonly payerUserId: string;
  readonly paymentDetailsId: string;
  readonly payerEmail: string;
  /** Two of A's pending payout links, to merge. */
  readonly payoutTokens: readonly string[];
  /** A's multicall payout of two other payout links. */
  readonly multicallToken: string;
  readonly destinationId: string;
  readonly webhookId: string;
  readonly webhookUrl: string;
  readonly webhookClientId: string;
  readonly deliveryId: string;
  readonly clientIdRowId: string;
  readonly clientIdLabel: string;
  readonly apiKeyId: string;
  /** A's client ID that A's orchestrator holds. */
  readonly linkedClientId: string;
  /** A's orchestrator's fee config for that client ID (incoming, payer-borne). */
  readonly feeConfigId: string;
  /** Its row id, which the account's client-ID routes take. */
  readonly linkedClientIdRowId: string;
  /** An endpoint of A's orchestrator (inactive) and its URL. */
  readonly orchestratorWebhookId: string;
  readonly orchestratorWebhookUrl: string;
  /** Nonces A fetched and A's wallet signed, to add and to deactivate the destination. */
  readonly add: { readonly nonce: string; readonly signature: Hex };
  readonly deactivate: { readonly nonce: string; readonly signature: Hex };
  /** A's recurring payout (pending) and its payer's (A's wallet's) signature over its permit. */
  readonly recurringPayoutId: string;
  readonly recurringSignature: Hex;
  /** Its pay token (`payUrl`): the payer's capability on the pay page. */
  readonly recurringPayToken: string;
}

type Expectation =
  /** Names A's object: B gets 403 or 404, or one of `codes` (the reference's 400s and 409s). */
  | { readonly kind: 'refused'; readonly codes?: readonly string[] }
  /** Acts on the caller's own data (lists, creation, B's own wallet): B may succeed. */
  | { readonly kind: 'own' }
  /** Answers about anyone, by design (documented where the route is built). */
  | { readonly kind: 'public' };

export interface Probe {
  readonly expect: Expectation;
  readonly query?: (o: Objects, caller: Tenant) => string;
  readonly body?: (o: Objects, caller: Tenant) => object;
  /** Which of A's credentials proves the call works; default: the first the route takes. */
  readonly as?: Kind;
  /**
   * A's own call cannot succeed with these fixtures (A's link is on Base): the code it answers
   * instead, one the route gives only once it has found A's link.
   */
  readonly ownCode?: string;
}

export const refused = (...codes: string[]): Expectation => ({ kind: 'refused', codes });
export const own: Expectation = { kind: 'own' };
let unique = 0;
export const next = () => {
  unique += 1;
  return unique;
};

/** A's wallet: the one its destination pays (`wallet@eip155:…`). */
export const walletOf = (o: Objects): string => o.destinationId.split('@')[0] ?? '';
