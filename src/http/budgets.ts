/**
 * The request budgets, alone in a module that imports nothing, so configuration can name them
 * without loading the limiter and its Redis client.
 */

/**
 * Requests per minute by kind of caller. Only the client-ID figures are published (per client
 * ID + IP: 120/300/600/1200 by tier, 300 by default); there is no published figure for API
 * keys, so theirs is ours: as generous as the highest client-ID tier, since a key is a server's.
 */
export interface RateLimits {
  /** `x-client-id` traffic (alone or with an orchestrator key), per client ID + IP. */
  readonly clientId: number;
  readonly apiKey: number;
  readonly session: number;
  /** Per orchestrator: the principal carries the orchestrator, not which of its keys was used. */
  readonly orchestratorKey: number;
  /** Unauthenticated `/v1/auth/*` (sign-in, registration, wallet challenges), per IP. */
  readonly authEndpoint: number;
  /** Credentials that match nothing (unknown key, client ID or orchestrator key), per IP. */
  readonly failedCredentials: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  clientId: 300,
  apiKey: 1_200,
  session: 600,
  orchestratorKey: 1_200,
  authEndpoint: 30,
  failedCredentials: 60,
};

/**
 * How much work the server takes at once (see src/server/admission.ts): requests running,
 * requests waiting, and how long one may wait before it is refused with 503.
 */
export interface AdmissionLimits {
  readonly maxInFlight: number;
  readonly maxQueue: number;
  readonly maxWaitMs: number;
}

/** The embedded database's defaults; with Postgres admission is off unless configured. */
export const PGLITE_ADMISSION: AdmissionLimits = { maxInFlight: 8, maxQueue: 64, maxWaitMs: 500 };
