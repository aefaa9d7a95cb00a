import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { IDEMPOTENCY_HEADER, parseKey, REPLAYED_HEADER, requestHash, scopeOf } from './keys.ts';
import { type Claim, claimKey, releaseKey, type StoredAnswer, storeAnswer } from './records.ts';

/** The methods that create or change something; GET, PUT and DELETE are idempotent already. */
const METHODS = new Set(['POST', 'PATCH']);
/** Seconds a caller is told to wait before retrying a key whose first request still runs. */
const RETRY_AFTER_SECONDS = '1';
/** Times a claim is tried when the row it met vanished before it could be read. */
const CLAIM_ATTEMPTS = 3;
/**
 * The answer's headers a client reads, kept with it and replayed. Per-request ones (the
 * request id, rate-limit counters, CORS grants for this origin, cookies, framing) are not.
 */
const KEPT_HEADERS = [
  'content-type',
  'content-disposition',
  'location',
  'cache-control',
  'etag',
  'link',
];

const IN_USE_MESSAGE = 'A request with this Idempotency-Key is still running: retry after it ends';
const REUSED_MESSAGE =
  'This Idempotency-Key was used with another request (method, path or body): use a new key';

interface Pending {
  readonly scope: string;
  readonly key: string;
  readonly hash: string;
  /** Set once this request holds the key. */
  claim: Claim | null;
  /** The answer sent, to store once it is out. */
  answer?: { readonly claim: Claim; readonly answer: StoredAnswer };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The `Idempotency-Key` this request carries, once checked (idempotency/hooks.ts). */
    idempotency: Pending | null;
  }
}

export interface IdempotencyDeps {
  readonly db: Database;
  readonly clock: Clock;
}

/**
 * `Idempotency-Key` on every POST and PATCH of an authenticated caller. The key is checked
 * and the request hashed before validation (the body as the parser left it, before the schema
 * coerces or drops anything); the key is claimed after validation, just before the handler, so
 * a request refused by its schema keeps nothing. The answer is stored as soon as it is sent;
 * a 5xx releases the key instead.
 */
export function installIdempotency(app: FastifyInstance, deps: IdempotencyDeps): void {
  app.decorateRequest('idempotency', null);
  app.addHook('preValidation', (request, _reply, done) => {
    const sent = request.headers[IDEMPOTENCY_HEADER];
    if (sent === undefined || request.principal === null || !METHODS.has(request.method)) {
      return done();
    }
    try {
      const key = parseKey(sent);
      const hash = requestHash(request.method, request.url, request.body);
      request.idempotency = { scope: scopeOf(request.principal), key, hash, claim: null };
      done();
    } catch (error) {
      done(error as Error);
    }
  });
  app.addHook('preHandler', async (request, reply) => {
    const pending = request.idempotency;
    if (pending === null) return;
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const found = await claimKey(deps.db, deps.clock.now(), pending);
      if (found === null) continue;
      if ('claim' in found) {
        pending.claim = found;
        return;
      }
      if (found.hash !== pending.hash) throw new AppError('idempotency_key_reused', REUSED_MESSAGE);
      if (found.state === 'running') break;
      return replay(reply, found.answer);
    }
    throw new AppError('idempotency_key_in_use', IN_USE_MESSAGE, {
      headers: { 'retry-after': RETRY_AFTER_SECONDS },
    });
  });
  // A 5xx releases the key before the answer leaves, so a retry sent on receipt runs again.
  // Any other answer is stored once it has been sent: the client does not wait for that
  // write (the bench's margin). A retry that arrives in those few milliseconds gets 409 and,
  // retried, the stored answer.
  const storing = new Set<Promise<void>>();
  app.addHook('onSend', async (request, reply, payload) => {
    const pending = request.idempotency;
    const claim = pending?.claim;
    if (pending === null || pending === undefined || claim === null || claim === undefined) {
      return payload;
    }
    // Once: a reply sent twice (an error after a send) must not be kept twice.
    pending.claim = null;
    const answer = keptAnswer(reply, payload);
    if (reply.statusCode < 500 && answer !== null) {
      pending.answer = { claim, answer };
      return payload;
    }
    await releaseKey(deps.db, claim).catch((error: unknown) => {
      request.log.warn({ err: error }, 'idempotency key not released');
    });
    return payload;
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const kept = request.idempotency?.answer;
    if (kept === null || kept === undefined) return done();
    // If this write fails (the database went away), the claim lapses after its lease and a
    // retry after that runs the request again.
    const write = storeAnswer(deps.db, kept.claim, kept.answer).catch((error: unknown) => {
      request.log.warn({ err: error }, 'idempotency record not kept');
    });
    storing.add(write);
    void write.finally(() => storing.delete(write));
    done();
  });
  // A stopping process keeps the answers it has sent before its database closes.
  app.addHook('onClose', async () => {
    await Promise.all(storing);
  });
}

function replay(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  reply.code(answer.status).headers(answer.headers).header(REPLAYED_HEADER, 'true');
  return answer.body === '' ? reply.send() : reply.send(answer.body);
}

/** The answer as it will be sent; null for one that is not text (a stream), which is not kept. */
function keptAnswer(reply: FastifyReply, payload: unknown): StoredAnswer | null {
  let body: string;
  if (payload === null || payload === undefined) body = '';
  else if (typeof payload === 'string') body = payload;
  else return null;
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined)
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return { status: reply.statusCode, headers, body };
}
