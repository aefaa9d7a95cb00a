import type { FastifyRequest } from 'fastify';
import type { ClientIdRow } from '../db/schema.ts';

/**
 * Who is calling. A route lists the credentials it accepts in `config.auth`, in order of
 * preference; the server's credential hook resolves the caller before anything else runs and
 * leaves the result on `request.principal`. Features read it through the helpers here.
 */

const CREDENTIAL_KINDS = [
  'apiKey',
  'clientId',
  'orchestratorKey',
  'orchestratorPair',
  'session',
] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

export type Principal =
  | { readonly kind: 'apiKey'; readonly accountId: string; readonly apiKeyId: string }
  | { readonly kind: 'clientId'; readonly accountId: string; readonly clientId: ClientIdRow }
  | { readonly kind: 'orchestratorKey'; readonly orchestratorId: string }
  | {
      readonly kind: 'orchestratorPair';
      readonly orchestratorId: string;
      readonly accountId: string;
      readonly clientId: ClientIdRow;
    }
  | {
      readonly kind: 'session';
      readonly accountId: string;
      readonly userId: string;
      readonly sessionId: string;
      /** The token as presented, for logout. */
      readonly token: string;
    };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Credentials the route accepts; absent means the route is public. */
    auth?: readonly CredentialKind[];
    /**
     * With `auth`: a caller may also send no credential at all (the route then runs with no
     * principal, budgeted per IP); a credential that is sent is still checked.
     */
    authOptional?: boolean;
    /**
     * The hosted pay page's client ID may call it (a link's token-scoped reads and payment
     * steps); every other route refuses that client ID.
     */
    payPage?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** The headers that carry each credential, for messages and the OpenAPI document. */
export const CREDENTIAL_HEADERS: Readonly<Record<CredentialKind, string>> = {
  apiKey: 'x-api-key',
  clientId: 'x-client-id',
  orchestratorKey: 'x-orchestrator-key',
  orchestratorPair: 'x-orchestrator-key + x-client-id',
  session: 'a session (session_token cookie or Authorization: Bearer)',
};

/** The account a route acts for; only call it on routes whose credentials all carry one. */
export function accountIdOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal === null || !('accountId' in principal)) {
    throw new Error(`route ${request.routeOptions.url} has no account principal`);
  }
  return principal.accountId;
}

/**
 * Whose links a token-scoped route may load: the caller's account's, or, for the hosted pay
 * page's client ID, any account's (the token is the payer's capability).
 */
export type LinkScope = { readonly accountId: string } | { readonly anyAccount: true };

export function linkScopeOf(request: FastifyRequest): LinkScope {
  const principal = request.principal;
  if (principal?.kind === 'clientId' && principal.clientId.firstParty) return { anyAccount: true };
  return { accountId: accountIdOf(request) };
}

/** The client ID the caller sent (alone or paired with an orchestrator key), if any. */
export function clientIdOf(request: FastifyRequest): ClientIdRow | null {
  const principal = request.principal;
  return principal && 'clientId' in principal ? principal.clientId : null;
}

/**
 * The browser origin a request comes from: its `Origin` header, or, when a browser left it out
 * (it does on a same-origin GET) and says the call is same-origin (`Sec-Fetch-Site`, a header
 * no page can set), this server's own origin as the request addressed it. Outside a browser
 * both headers can be forged, as `Origin` always could: an origin check keeps other sites'
 * pages out, it does not authenticate a script.
 */
export function requestOrigin(request: FastifyRequest): string | undefined {
  const origin = headerText(request.headers.origin);
  if (origin !== undefined) return origin;
  if (headerText(request.headers['sec-fetch-site']) !== 'same-origin') return undefined;
  const host = request.host;
  return host === '' ? undefined : `${request.protocol}://${host}`;
}

/** A header's value, trimmed; a repeated header arrives joined (so matches nothing). */
function headerText(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = (Array.isArray(value) ? value.join(',') : value).trim();
  return text === '' ? undefined : text;
}

/**
 * The browser origin a client ID called from: set only for a client ID with allowed domains,
 * whose origin (`requestOrigin`) the credential hook has checked against them (normalised as
 * stored there).
 * Server-side callers (backend client IDs, keys, sessions) have none.
 */
export function browserOriginOf(request: FastifyRequest): string | null {
  const principal = request.principal;
  const origin = requestOrigin(request);
  if (principal?.kind !== 'clientId' || principal.clientId.allowedDomains.length === 0) return null;
  if (origin === undefined) return null;
  try {
    return new URL(origin).origin;
  } catch {
    return null;
  }
}

/**
 * What a caller may list: its account's objects, or, when it calls with a client ID (alone or
 * paired with an orchestrator key), only those made with that client ID. A client ID may be a
 * browser's, and so public; an API key or a session speaks for the whole account.
 */
export interface CallerScope {
  readonly accountId: string;
  readonly clientIdId: string | null;
}

export function scopeOf(request: FastifyRequest): CallerScope {
  return { accountId: accountIdOf(request), clientIdId: clientIdOf(request)?.id ?? null };
}
