import { ApiError } from '../answer.ts';
import type { Branding } from '../api.ts';

/**
 * The auth API calls of a link intent's page: wallet sign-in (SIWE), then, with the session
 * the sign-in gave as a Bearer token, the intent, the wallet's destination and the completion.
 * The session lives in this page's memory only: no cookie is sent or kept (`credentials:
 * 'omit'`), so the page works the same when the auth API is on another origin, and closing
 * the tab forgets it (the server ends an idle wallet session after 15 minutes).
 */

interface Challenge {
  readonly challengeId: string;
  readonly nonce: string;
  readonly message: string;
}

export interface KytProvider {
  readonly provider: string;
  readonly policyId: string | null;
  readonly priority: number;
}

/** `GET /v1/client-id-links/intents/{token}`: whom the merchant links to, and under what name. */
export interface IntentFacts {
  readonly intent: {
    readonly id: string;
    readonly clientIdName: string;
    readonly allowedDomains: readonly string[];
    readonly externalId: string | null;
    readonly kyt: { readonly providers: readonly KytProvider[] } | null;
    readonly expiresAt: string;
  };
  readonly orchestrator: { readonly id: string; readonly name: string };
  readonly branding: Branding | null;
}

/** The signed-in wallet's active payee destination, as `/v1/payee-destination` answers it. */
export interface Destination {
  readonly destinationId: string;
  readonly walletAddress: string;
  readonly tokenAddress: string;
  readonly chainId: number;
}

/** `POST /v1/client-id-links/intents/{token}`: the new client ID, linked. */
export interface Linked {
  readonly clientId: {
    readonly clientId: string;
    readonly label: string;
    readonly allowedDomains: readonly string[];
    readonly payeeDestinationId: string;
  };
}

export interface IntentApi {
  challenge(address: string, chainId: number | undefined): Promise<Challenge>;
  /** The session token of the signed challenge. */
  verify(challenge: Challenge, signature: string): Promise<string>;
  facts(session: string, token: string): Promise<IntentFacts>;
  destination(session: string): Promise<Destination | null>;
  /** Creates (or reactivates) the signed-in wallet's destination for this token. */
  createDestination(session: string, chainId: number, tokenAddress: string): Promise<Destination>;
  complete(session: string, token: string, destinationId: string): Promise<Linked>;
}

const ANSWER_WITHIN_MS = 15_000;

export function createIntentApi(authBase: string): IntentApi {
  const call = async (
    path: string,
    init: { method?: string; session?: string; body?: unknown } = {},
  ): Promise<unknown> => {
    const headers: Record<string, string> = {};
    if (init.session !== undefined) headers.authorization = `Bearer ${init.session}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${authBase}${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
      credentials: 'omit',
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
    const body = (await response.json().catch(() => null)) as unknown;
    if (!response.ok) {
      const envelope = (body ?? {}) as { message?: unknown; code?: unknown };
      throw new ApiError(
        response.status,
        typeof envelope.message === 'string'
          ? envelope.message
          : `The service answered ${response.status}`,
        typeof envelope.code === 'string' ? envelope.code : undefined,
      );
    }
    return body;
  };
  const intentPath = (token: string) => `/v1/client-id-links/intents/${encodeURIComponent(token)}`;
  return {
    async challenge(address, chainId) {
      const body = { address, ...(chainId !== undefined && { chainId }) };
      return (await call('/v1/auth/wallet/challenge', { method: 'POST', body })) as Challenge;
    },
    async verify(challenge, signature) {
      const { challengeId, nonce, message } = challenge;
      const answer = (await call('/v1/auth/wallet/verify', {
        method: 'POST',
        body: { challengeId, nonce, message, signature },
      })) as { sessionToken: string };
      return answer.sessionToken;
    },
    async facts(session, token) {
      return (await call(intentPath(token), { session })) as IntentFacts;
    },
    async destination(session) {
      return (await call('/v1/payee-destination', { session })) as Destination | null;
    },
    async createDestination(session, chainId, tokenAddress) {
      return (await call('/v1/payee-destination', {
        method: 'POST',
        session,
        body: { chainId, tokenAddress },
      })) as Destination;
    },
    async complete(session, token, destinationId) {
      return (await call(intentPath(token), {
        method: 'POST',
        session,
        body: { destinationId },
      })) as Linked;
    },
  };
}
