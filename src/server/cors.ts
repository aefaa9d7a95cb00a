import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { originAllowed } from '../http/origins.ts';
import type { CredentialKind } from '../http/principal.ts';
import type { RouteEntry } from './route-table.ts';

/**
 * Which browser origins may read our answers (CORS), per route and per caller:
 *
 * - Routes a browser may call with `x-client-id`: the answer grants the request's `Origin` only
 *   when it is one of that client ID's allowed domains (a backend client ID, with none, grants
 *   nothing). A preflight carries no client ID, so on these routes it is granted to any origin;
 *   the request that follows is still refused by the client ID's origin check and its answer
 *   grants nothing.
 * - The dashboard's origin (`DASHBOARD_URL`): routes that take a session and the sign-in routes,
 *   with credentials, since the session travels in a cookie. No other origin ever gets
 *   credentials, and no credentialed answer names `*`.
 * - Routes whose credential is optional (`GET /v2/currencies`): an anonymous answer is public,
 *   granted to any origin without credentials; one to a client ID follows the rule above.
 * - Routes that take only server-side credentials (API and orchestrator keys) grant nothing.
 * - The page of a link intent (`PAY_URL`'s origin): the few auth API routes it calls, with the
 *   merchant's session as a Bearer token and without credentials (it never uses the cookie).
 * - The sandbox chain's JSON-RPC holds no value: any origin, no credentials.
 */

/** Seconds a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_S = 600;
/** What a script may read off an answer, beside the CORS-safelisted headers. */
export const EXPOSED_HEADERS = [
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'retry-after',
  'x-request-id',
];
// `x-platform-id`: clients of the reference send it; we ignore it, but a browser sends nothing
// its preflight does not allow.
const CLIENT_ID_HEADERS = ['content-type', 'x-client-id', 'x-request-id', 'x-platform-id'];
const DASHBOARD_HEADERS = [
  'content-type',
  'authorization',
  'x-client-id',
  'x-request-id',
  'x-platform-id',
];
const PUBLIC_PATHS = new Set(['/sandbox/rpc', '/sandbox-b/rpc']);
/** What a link intent's page calls (src/pay-page/app/link-intent/api.ts), by method and route. */
const INTENT_PAGE_ROUTES = new Set([
  'POST /v1/auth/wallet/challenge',
  'POST /v1/auth/wallet/verify',
  'GET /v1/client-id-links/intents/:token',
  'POST /v1/client-id-links/intents/:token',
  'GET /v1/payee-destination',
  'POST /v1/payee-destination',
]);
const INTENT_PAGE_HEADERS = ['content-type', 'authorization', 'x-request-id'];

type Policy = 'none' | 'public' | 'clientId' | 'dashboard' | 'intentPage';

const NONE: FastifyCorsOptions = { origin: false };

export async function installCors(
  app: FastifyInstance,
  deps: {
    readonly routes: readonly RouteEntry[];
    readonly dashboardUrl: string;
    readonly payUrl: string;
  },
): Promise<void> {
  const dashboardOrigin = new URL(deps.dashboardUrl).origin;
  const payOrigin = new URL(deps.payUrl).origin;
  const matcher = routeMatcher(deps.routes);

  const options = (request: FastifyRequest): FastifyCorsOptions => {
    const origin = request.headers.origin;
    if (origin === undefined) return NONE;
    const preflight =
      request.method === 'OPTIONS' &&
      request.headers['access-control-request-method'] !== undefined;
    const route = preflight
      ? matcher(String(request.headers['access-control-request-method']), request.url)
      : { url: request.routeOptions.url ?? '', auth: request.routeOptions.config?.auth };
    if (route === null) return NONE;
    const dashboard = origin === dashboardOrigin;
    const method = preflight
      ? String(request.headers['access-control-request-method']).toUpperCase()
      : request.method;
    const intentPage =
      origin === payOrigin &&
      INTENT_PAGE_ROUTES.has(`${method === 'HEAD' ? 'GET' : method} ${route.url}`);
    const common: FastifyCorsOptions = {
      exposedHeaders: EXPOSED_HEADERS,
      // A preflight is granted the one method it asks about, for the route it matched.
      ...(preflight && { methods: String(request.headers['access-control-request-method']) }),
      maxAge: PREFLIGHT_MAX_AGE_S,
      strictPreflight: true,
    };
    switch (policyOf(route, dashboard, intentPage)) {
      case 'public':
        return { ...common, origin: '*', allowedHeaders: ['content-type'], credentials: false };
      case 'dashboard':
        return { ...common, origin, allowedHeaders: DASHBOARD_HEADERS, credentials: true };
      case 'intentPage':
        return { ...common, origin, allowedHeaders: INTENT_PAGE_HEADERS, credentials: false };
      case 'clientId': {
        // Preflights are decided by route; answers by the client ID that was resolved. An
        // anonymous call to a route whose credential is optional reads public facts: any origin.
        const principal = request.principal;
        const anonymous = principal === null && request.credentialError === null;
        if (!preflight && anonymous && request.routeOptions.config?.authOptional) {
          return { ...common, origin: '*', allowedHeaders: ['content-type'], credentials: false };
        }
        const grants =
          preflight ||
          (principal?.kind === 'clientId' &&
            principal.clientId.allowedDomains.length > 0 &&
            originAllowed(principal.clientId.allowedDomains, origin));
        return grants
          ? { ...common, origin, allowedHeaders: CLIENT_ID_HEADERS, credentials: false }
          : NONE;
      }
      case 'none':
        return NONE;
    }
  };

  await app.register(cors, {
    hook: 'onRequest',
    // A preflight without a grant is a route we do not serve to browsers: 404.
    // Callback-style: no promise per request.
    delegator: (request: FastifyRequest, callback) => callback(null, options(request)),
  });
}

function policyOf(
  route: { readonly url: string; readonly auth: readonly CredentialKind[] | undefined },
  dashboard: boolean,
  intentPage: boolean,
): Policy {
  if (PUBLIC_PATHS.has(route.url)) return 'public';
  const signIn = route.auth === undefined && route.url.startsWith('/v1/auth/');
  if (dashboard && (signIn || route.auth?.includes('session'))) return 'dashboard';
  if (intentPage) return 'intentPage';
  if (route.auth?.includes('clientId')) return 'clientId';
  return 'none';
}

interface MatchedRoute {
  readonly url: string;
  readonly auth: readonly CredentialKind[] | undefined;
}

/**
 * Finds the route a preflight asks about: the method it names and the path, with `:param`
 * segments matching any one segment and static segments winning over them, as the router does.
 * The table is read on first use, once every route is registered.
 */
function routeMatcher(
  routes: readonly RouteEntry[],
): (method: string, url: string) => MatchedRoute | null {
  let compiled: ReturnType<typeof compile> | undefined;
  return (method, url) => {
    compiled ??= compile(routes);
    const path = (url.split('?')[0] ?? '').replace(/\/+$/, '') || '/';
    const segments = path.split('/');
    const wanted = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    for (const candidate of compiled) {
      if (candidate.method !== wanted || candidate.segments.length !== segments.length) continue;
      const matches = candidate.segments.every(
        (segment, i) => segment.startsWith(':') || segment === segments[i],
      );
      if (matches) return { url: candidate.route.url, auth: candidate.route.auth };
    }
    return null;
  };
}

function compile(routes: readonly RouteEntry[]) {
  return routes
    .filter((route) => !route.url.includes('*'))
    .map((route) => ({
      route,
      method: route.method,
      segments: route.url.split('/'),
      params: route.url.split('/').filter((s) => s.startsWith(':')).length,
    }))
    .sort((a, b) => a.params - b.params);
}
