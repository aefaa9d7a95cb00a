import type { FastifyInstance, FastifyRequest } from 'fastify';
import { andThen, settle } from '../base/maybe.ts';
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../http/budgets.ts';
import {
  BREACH_BLOCK_MS,
  RATE_LIMIT_WINDOW_MS,
  RateLimitedError,
  type RateLimiter,
  type RateLimitOptions,
  rateLimitHeaders,
} from '../http/rate-limit.ts';

/**
 * Budgets every authenticated request, anonymous calls to a route whose credential is optional
 * (`authOptional`, e.g. `GET /v2/currencies`) per IP, and unauthenticated `/v1/auth/*` per IP (a
 * brute-force guard on sign-in); other public routes (health, docs) are not limited. Register it after
 * `installAuth`: onRequest hooks run in registration order and the budget depends on who the
 * caller is (`request.principal`). A request whose credentials fail is refused by auth first
 * and does not count.
 *
 * The IP is `request.ip`: behind a proxy or load balancer, set Fastify's `trustProxy` to the
 * proxies, or every caller shares the proxy's address and budget.
 */
export function installRateLimit(
  app: FastifyInstance,
  limiter: RateLimiter,
  options: RateLimitOptions = {},
): void {
  const limits: RateLimits = { ...DEFAULT_RATE_LIMITS, ...options.limits };
  app.addHook('onRequest', (request, reply, done) =>
    settle(done, () => {
      const budget = budgetOf(request, limits);
      if (budget === null) return;
      const blockMs = budget.blocks ? BREACH_BLOCK_MS : undefined;
      return andThen(
        limiter.hit(budget.key, budget.limit, RATE_LIMIT_WINDOW_MS, blockMs),
        (result) => {
          const headers = rateLimitHeaders(budget.limit, result);
          if (!result.allowed)
            throw new RateLimitedError(Number(headers['ratelimit-reset']), headers);
          reply.headers(headers);
        },
      );
    }),
  );
}

/**
 * Credentials that were presented and matched nothing: what guessing looks like. Missing,
 * expired or revoked ones are not counted: a signed-out browser or a stale cookie is not a
 * guess, and behind one NAT it must not lock out everyone else.
 */
const GUESS_CODES = new Set(['invalid_api_key', 'invalid_client_id', 'invalid_orchestrator_key']);

/**
 * Per IP, credentials that match nothing: once an IP has sent `failedCredentials` of them
 * within 60 seconds, its requests to authenticated routes answer 429 before any credential is
 * looked up, until the oldest leaves the window. A throttle on sustained guessing, not a hard
 * cap: requests already past the check when the limit is reached still get their lookup.
 * Register it before `installAuth`, so that a refused IP costs no database lookup.
 */
export function installFailedCredentialLimit(
  app: FastifyInstance,
  limiter: RateLimiter,
  options: RateLimitOptions = {},
): void {
  const limit = options.limits?.failedCredentials ?? DEFAULT_RATE_LIMITS.failedCredentials;
  const keyOf = (request: FastifyRequest) => `failed-credentials:${request.ip}`;
  app.addHook('onRequest', (request, _reply, done) =>
    settle(done, () => {
      if (request.routeOptions.config?.auth === undefined) return;
      return andThen(limiter.peek(keyOf(request), limit, RATE_LIMIT_WINDOW_MS), (state) => {
        if (state.allowed) return;
        const headers = rateLimitHeaders(limit, state);
        throw new RateLimitedError(Number(headers['ratelimit-reset']), headers);
      });
    }),
  );
  // Counted before the answer leaves, so the caller's next request already sees it.
  app.addHook('onError', async (request, _reply, error) => {
    if (GUESS_CODES.has((error as { code?: unknown }).code as string)) {
      await limiter.hit(keyOf(request), limit, RATE_LIMIT_WINDOW_MS);
    }
  });
}

interface Budget {
  /** Names ids, never a credential's value: keys may sit in a shared Redis. */
  readonly key: string;
  readonly limit: number;
  /** Whether a sustained breach blocks the caller (client ID + IP traffic, as published). */
  readonly blocks?: boolean;
}

function budgetOf(request: FastifyRequest, limits: RateLimits): Budget | null {
  const principal = request.principal;
  if (principal === null) {
    if (request.routeOptions.config?.authOptional === true) {
      // No published figure for anonymous calls: a client ID's, per IP.
      return { key: `anonymous:${request.ip}`, limit: limits.clientId };
    }
    if (request.routeOptions.config?.auth !== undefined) {
      // Auth answers 401 rather than leave a guarded route without a principal.
      throw new Error('installRateLimit ran before installAuth; register it after');
    }
    const route = request.routeOptions.url;
    return route?.startsWith('/v1/auth/')
      ? { key: `auth:${request.ip}`, limit: limits.authEndpoint }
      : null;
  }
  switch (principal.kind) {
    case 'clientId':
    case 'orchestratorPair': {
      const own = principal.clientId.rateLimitPerMinute;
      return {
        key: `client:${principal.clientId.id}:${request.ip}`,
        limit: own !== null && own > 0 ? own : limits.clientId,
        blocks: true,
      };
    }
    case 'apiKey':
      return { key: `apikey:${principal.apiKeyId}`, limit: limits.apiKey };
    case 'session':
      return { key: `session:${principal.sessionId}`, limit: limits.session };
    case 'orchestratorKey':
      return { key: `orchestrator:${principal.orchestratorId}`, limit: limits.orchestratorKey };
  }
}
