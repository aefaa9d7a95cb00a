import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkApiKey } from '../auth/api-keys.ts';
import { findClientId } from '../auth/client-ids.ts';
import { checkSession, SESSION_COOKIE } from '../auth/sessions.ts';
import type { UsageRecorder } from '../auth/usage.ts';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import { andThen, type MaybePromise } from '../base/maybe.ts';
import type { Database } from '../db/client.ts';
import type { ClientIdRow } from '../db/schema.ts';
import { CROSS_SITE_COOKIE_MESSAGE, cookieWriteAllowed } from '../http/cookie-writes.ts';
import type { CredentialCache } from '../http/credential-cache.ts';
import { originAllowed } from '../http/origins.ts';
import {
  CREDENTIAL_HEADERS,
  type CredentialKind,
  type Principal,
  requestOrigin,
} from '../http/principal.ts';
import { checkOrchestratorKey, isLinked } from '../orchestrators/orchestrators.ts';

interface Presented {
  readonly apiKey: string | undefined;
  readonly clientId: string | undefined;
  readonly orchestratorKey: string | undefined;
  readonly origin: string | undefined;
  readonly session: string | undefined;
  /** The session came in the cookie (ambient), not as a Bearer token. */
  readonly sessionFromCookie: boolean;
}

type AuthDeps = {
  db: Database;
  usage: UsageRecorder;
  clock: Clock;
  /** Looked-up API keys and client IDs, briefly (http/credential-cache.ts). */
  credentials: CredentialCache;
  /** Origins whose pages may change things with the session cookie (http/cookie-writes.ts). */
  cookieWriteOrigins: ReadonlySet<string>;
};

declare module 'fastify' {
  interface FastifyRequest {
    /** Why the credentials were refused, until the gate answers with it. */
    credentialError: unknown;
  }
}

/**
 * The credential hooks. A route lists what it accepts in `config.auth`, in order of
 * preference. The first hook resolves the caller before anything else runs (body parsing
 * included) and leaves the result on `request.principal`, or the refusal on
 * `request.credentialError`; the gate, installed after the hooks that must see every caller
 * (CORS: a browser must be able to read a 401), answers the refusal. Missing or bad
 * credentials answer 401; a valid credential that may not do this answers 403.
 */
export function installAuth(app: FastifyInstance, deps: AuthDeps): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('credentialError', null);
  // Callback-style, so a caller whose credential is cached passes without a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const accepted = request.routeOptions.config.auth;
    if (accepted === undefined) return done();
    const refuse = (error: unknown) => {
      request.credentialError = error;
    };
    const presented = presentedCredentials(request);
    if (request.routeOptions.config.authOptional === true && anonymous(presented, accepted)) {
      return done();
    }
    const admit = (principal: Principal) => {
      if (
        principal.kind === 'session' &&
        presented.sessionFromCookie &&
        !cookieWriteAllowed(request.method, presented.origin, deps.cookieWriteOrigins, request)
      ) {
        throw new AppError('origin_not_allowed', CROSS_SITE_COOKIE_MESSAGE);
      }
      if (
        principal.kind === 'clientId' &&
        principal.clientId.firstParty &&
        request.routeOptions.config.payPage !== true
      ) {
        throw new AppError(
          'credential_not_accepted',
          'The pay page’s client ID only reads and pays links by their token',
        );
      }
      request.principal = principal;
    };
    // A refusal is not the hook's error: it waits on the request for the gate.
    let outcome: MaybePromise<void>;
    try {
      outcome = andThen(authenticate(deps, accepted, presented), admit);
    } catch (error) {
      refuse(error);
      return done();
    }
    if (!(outcome instanceof Promise)) return done();
    outcome.then(
      () => done(),
      (error: unknown) => {
        refuse(error);
        done();
      },
    );
  });
}

export function installAuthGate(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    done((request.credentialError ?? undefined) as Error | undefined);
  });
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (value === undefined) return undefined;
  // A repeated header arrives joined or as an array; either way it is not one credential.
  const text = Array.isArray(value) ? value.join(',') : value;
  const trimmed = text.trim();
  return trimmed === '' ? undefined : trimmed;
}

function presentedCredentials(request: FastifyRequest): Presented {
  const bearer = /^Bearer\s+(\S+)$/i.exec(header(request, 'authorization') ?? '')?.[1];
  const cookie = request.cookies?.[SESSION_COOKIE];
  return {
    apiKey: header(request, 'x-api-key'),
    clientId: header(request, 'x-client-id'),
    orchestratorKey: header(request, 'x-orchestrator-key'),
    origin: requestOrigin(request),
    session: bearer ?? (cookie === undefined || cookie === '' ? undefined : cookie),
    sessionFromCookie: bearer === undefined && cookie !== undefined && cookie !== '',
  };
}

/** Which credential kinds the caller sent, judged by headers alone. */
function presentedKinds(p: Presented): CredentialKind[] {
  const kinds: CredentialKind[] = [];
  if (p.orchestratorKey !== undefined) {
    kinds.push(p.clientId !== undefined ? 'orchestratorPair' : 'orchestratorKey');
  }
  if (p.apiKey !== undefined) kinds.push('apiKey');
  if (p.clientId !== undefined && p.orchestratorKey === undefined) kinds.push('clientId');
  // A session is consulted only when no header credential is sent.
  if (kinds.length === 0 && p.session !== undefined) kinds.push('session');
  return kinds;
}

/**
 * Whether a route whose credential is optional answers this caller as anonymous: nothing sent,
 * or only the session cookie where the route takes no session. A browser sends the cookie by
 * itself to every page of the dashboard's site, so it says nothing about what the caller meant;
 * a credential sent in a header (Authorization included) was meant, and is checked.
 */
function anonymous(presented: Presented, accepted: readonly CredentialKind[]): boolean {
  const sent = presentedKinds(presented);
  if (sent.length === 0) return true;
  const cookieOnly = presented.sessionFromCookie && sent.length === 1 && sent[0] === 'session';
  return cookieOnly && !accepted.includes('session');
}

function authenticate(
  deps: AuthDeps,
  accepted: readonly CredentialKind[],
  presented: Presented,
): MaybePromise<Principal> {
  const sent = presentedKinds(presented);
  if (sent.length === 0) {
    throw new AppError(
      'missing_credentials',
      `Missing credentials: send ${accepted.map((k) => CREDENTIAL_HEADERS[k]).join(' or ')}`,
    );
  }
  const chosen = accepted.find((kind) => sent.includes(kind));
  if (chosen === undefined) {
    // Validate what was sent first, so a bad credential still answers 401, not 403; a refused
    // one is not recorded as used.
    const first = sent[0] as CredentialKind;
    const unrecorded = { ...deps, usage: { touch: () => {}, flush: async () => {} } };
    return andThen(resolve(unrecorded, first, presented), () => {
      throw new AppError(
        'credential_not_accepted',
        `This endpoint does not accept ${CREDENTIAL_HEADERS[first]}; use ${accepted.map((k) => CREDENTIAL_HEADERS[k]).join(' or ')}`,
      );
    });
  }
  return resolve(deps, chosen, presented);
}

/** Cached API keys and client IDs resolve at once; the rest wait for the database. */
function resolve(
  deps: AuthDeps,
  kind: CredentialKind,
  presented: Presented,
): MaybePromise<Principal> {
  switch (kind) {
    case 'apiKey': {
      const presentedKey = presented.apiKey ?? '';
      // Keyed by the key as sent (the cache is this process's memory, never logged or shared):
      // a digest per request was the costliest step of an authenticated request.
      const check = deps.credentials.get(
        `apiKey:${presentedKey}`,
        () => checkApiKey(deps.db, presentedKey),
        (found) => found.status === 'valid',
      );
      return andThen(check, (found): Principal => {
        if (found.status === 'unknown') throw new AppError('invalid_api_key', 'Invalid API key');
        if (found.status === 'revoked') {
          throw new AppError('revoked_api_key', 'API key has been revoked');
        }
        deps.usage.touch('apiKey', found.id);
        return { kind: 'apiKey', accountId: found.accountId, apiKeyId: found.id };
      });
    }
    case 'clientId':
      return andThen(usableClientId(deps, presented.clientId ?? ''), (clientId): Principal => {
        checkOrigin(clientId, presented.origin);
        deps.usage.touch('clientId', clientId.id);
        return { kind: 'clientId', accountId: clientId.accountId, clientId };
      });
    default:
      return resolveAfterLookup(deps, kind, presented);
  }
}

async function resolveAfterLookup(
  deps: AuthDeps,
  kind: 'orchestratorKey' | 'orchestratorPair' | 'session',
  presented: Presented,
): Promise<Principal> {
  switch (kind) {
    case 'orchestratorKey': {
      const orchestratorId = await orchestratorOf(
        deps.db,
        presented.orchestratorKey ?? '',
        deps.usage,
      );
      return { kind: 'orchestratorKey', orchestratorId };
    }
    case 'orchestratorPair': {
      // Paired calls come from the orchestrator's servers, so the key, not Origin, vouches for them.
      const orchestratorId = await orchestratorOf(
        deps.db,
        presented.orchestratorKey ?? '',
        deps.usage,
      );
      const clientId = await usableClientId(deps, presented.clientId ?? '');
      if (!(await isLinked(deps.db, orchestratorId, clientId.id))) {
        throw new AppError('client_id_not_linked', 'Client ID is not linked to this orchestrator');
      }
      deps.usage.touch('clientId', clientId.id);
      return { kind: 'orchestratorPair', orchestratorId, accountId: clientId.accountId, clientId };
    }
    case 'session': {
      const token = presented.session ?? '';
      const check = await checkSession(deps.db, deps.clock, token);
      if (check.status === 'unknown') throw new AppError('invalid_session', 'Invalid session');
      if (check.status === 'expired')
        throw new AppError('session_expired', 'Session expired; sign in again');
      const { session } = check;
      return {
        kind: 'session',
        accountId: session.accountId,
        userId: session.userId,
        sessionId: session.id,
        token,
      };
    }
  }
}

function usableClientId(deps: AuthDeps, value: string): MaybePromise<ClientIdRow> {
  const found = deps.credentials.get(
    `clientId:${value}`,
    () => findClientId(deps.db, value),
    (row) => row !== null,
  );
  return andThen(found, usable);
}

function usable(clientId: ClientIdRow | null): ClientIdRow {
  if (clientId === null) throw new AppError('invalid_client_id', 'Invalid client ID');
  switch (clientId.status) {
    // Known but refused for good: 403, the reference's "revoked/restricted Client ID", alone or
    // paired with an orchestrator key. (A revoked API key stays 401; the reference names only
    // client IDs there.)
    case 'revoked':
      throw new AppError('revoked_client_id', 'Client ID has been revoked');
    case 'inactive':
      throw new AppError('inactive_client_id', 'Client ID is inactive');
    case 'active':
      return clientId;
  }
}

/** A client ID with allowed domains works only from those browser origins; none means backend. */
function checkOrigin(clientId: ClientIdRow, origin: string | undefined): void {
  if (clientId.allowedDomains.length === 0) return;
  if (origin === undefined) throw new AppError('origin_required', 'Origin header is required');
  if (!originAllowed(clientId.allowedDomains, origin)) {
    throw new AppError('origin_not_allowed', 'Origin is not allowed for this client ID');
  }
}

async function orchestratorOf(db: Database, key: string, usage: UsageRecorder): Promise<string> {
  const check = await checkOrchestratorKey(db, key);
  if (check.status === 'unknown') {
    throw new AppError('invalid_orchestrator_key', 'Invalid orchestrator key');
  }
  if (check.status === 'revoked') {
    throw new AppError('revoked_orchestrator_key', 'Orchestrator key has been revoked');
  }
  usage.touch('orchestratorKey', check.keyId);
  return check.orchestratorId;
}
