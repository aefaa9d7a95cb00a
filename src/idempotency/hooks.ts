import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { IDEMPOTENCY_HEADER, parseKey, REPLAYED_HEADER, requestHash, scopeOf } from './keys.ts';
import {
  type Claim,
  type ClaimRow,
  claimKey,
  claimOf,
  claimRowOf,
  type Existing,
  findKey,
  type KeyClaim,
  KeyTaken,
  releaseKey,
  type StoredAnswer,
  storeAnswer,
} from './records.ts';

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
  /** The claim this request makes, once it passed validation. */
  row: ClaimRow | null;
  /**
   * `open`: the key is not this request's (yet: a route whose write keeps it has not
   * written); `ours`: it holds the key; `theirs`: another request does; `answered`: its answer
   * is on its way to be kept, or the key released, or kept by the route's write. Only an
   * answer given as `ours` is kept.
   */
  state: 'open' | 'ours' | 'theirs' | 'answered';
  /** The answer sent, to store once it is out. */
  answer?: { readonly claim: Claim; readonly answer: StoredAnswer };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The `Idempotency-Key` this request carries, once checked (idempotency/hooks.ts). */
    idempotency: Pending | null;
  }
  interface FastifyContextConfig {
    /**
     * `inWrite`: the route's own write keeps the key with what the request makes
     * (`claimInWrite`), instead of a record claimed before the handler.
     */
    idempotencyClaim?: 'inWrite';
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
      request.idempotency = {
        scope: scopeOf(request.principal),
        key,
        hash,
        row: null,
        state: 'open',
      };
      done();
    } catch (error) {
      done(error as Error);
    }
  });
  app.addHook('preHandler', async (request, reply) => {
    const pending = request.idempotency;
    if (pending === null) return;
    const row = claimRowOf(pending, deps.clock.now());
    pending.row = row;
    if (request.routeOptions.config.idempotencyClaim === 'inWrite') return;
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const found = await claimKey(deps.db, row);
      if (found === null) continue;
      if ('claim' in found) {
        pending.state = 'ours';
        return;
      }
      return answerHeld(reply, pending, found);
    }
    pending.state = 'theirs';
    throw inUse();
  });
  // A 5xx releases the key before the answer leaves, so a retry sent on receipt runs again.
  // Any other answer is stored once it has been sent: the client does not wait for that
  // write (the bench's margin). A retry that arrives in those few milliseconds gets 409 and,
  // retried, the stored answer.
  const storing = new Set<Promise<void>>();
  app.addHook('onSend', async (request, reply, payload) => {
    const pending = request.idempotency;
    const row = pending?.row;
    if (pending === null || pending === undefined || row === null || row === undefined) {
      return payload;
    }
    // Once: a reply sent twice (an error after a send) must not be kept twice. A request whose
    // route's write would have claimed the key and that was answered before it wrote (a
    // refusal of what it asked, nothing made) keeps nothing: a retry runs afresh.
    if (pending.state !== 'ours') {
      if (pending.state === 'open' && reply.statusCode < 300) {
        request.log.error(
          'a route that claims its Idempotency-Key in its write answered 2xx unclaimed',
        );
      }
      return payload;
    }
    pending.state = 'answered';
    const answer = keptAnswer(reply, payload);
    if (answer !== null && reply.statusCode < 500) {
      pending.answer = { claim: claimOf(row), answer };
      return payload;
    }
    await releaseKey(deps.db, claimOf(row)).catch((error: unknown) => {
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

/** What a route's own write keeps under a key, found again: for a retry to be answered. */
export interface HeldWrite {
  /** The hash of the request that made it (keys.ts, `requestHash`). */
  readonly hash: string;
  /** What the route answered, rendered again from what it made. */
  readonly payload: unknown;
}

/**
 * The handler of a route whose own write keeps the request's key with what it makes
 * (`idempotencyClaim: 'inWrite'`): `handle` gets the claim for its write, or none when the
 * request has no key, and returns the payload answered with `status`. When the write found the
 * key held (or the request was refused before it wrote), the key's holder answers first: what
 * `held` finds the route made under it, replayed, or a record of another route's (records.ts),
 * and 422 for another request under the key.
 */
export async function claimInWrite(
  db: Database,
  request: FastifyRequest,
  reply: FastifyReply,
  route: { readonly status: number; readonly held: (claim: ClaimRow) => Promise<HeldWrite | null> },
  handle: (claim: KeyClaim | undefined) => Promise<unknown>,
): Promise<void> {
  const pending = request.idempotency;
  const row = pending?.row;
  // Awaited: a reply is sent once its hooks have run, and the handler must not end before.
  if (pending === null || row === null || row === undefined || pending.state !== 'open') {
    await reply.code(route.status).send(await handle(undefined));
    return;
  }
  const claim: KeyClaim = {
    row,
    // Kept with what it made: nothing to store once the answer is out.
    claimed: () => {
      pending.state = 'answered';
    },
  };
  try {
    await reply.code(route.status).send(await handle(claim));
  } catch (error) {
    if (pending.state !== 'open') throw error;
    // Refused before its write could keep the key (or by the write, which found it held): if
    // another request holds the key, its answer comes first. A retry of a request that made
    // its link gets that 201, even where the account changed since and the request, run
    // again, would be refused; another request under the key gets 422. Only this path reads.
    // A failed look is this request's failure (a 5xx, retried with the same key), not its 4xx:
    // that would tell a client whose link exists that nothing was made.
    const made = await route.held(row);
    if (made !== null) {
      pending.state = 'theirs';
      if (made.hash !== pending.hash) throw reused();
      await reply.code(route.status).header(REPLAYED_HEADER, 'true').send(made.payload);
      return;
    }
    const found = await findKey(db, row);
    if (found !== null) {
      await answerHeld(reply, pending, found);
      return;
    }
    if (!(error instanceof KeyTaken)) throw error;
    // Its holder let it go since (24 hours passed): the client may retry at once.
    pending.state = 'theirs';
    throw inUse();
  }
}

/** Another request holds the key: its answer replayed, or why this request cannot run. */
function answerHeld(reply: FastifyReply, pending: Pending, found: Existing): FastifyReply {
  pending.state = 'theirs';
  if (found.hash !== pending.hash) throw reused();
  if (found.state !== 'answered') throw inUse();
  return replay(reply, found.answer);
}

function reused(): AppError {
  return new AppError('idempotency_key_reused', REUSED_MESSAGE);
}

function inUse(): AppError {
  return new AppError('idempotency_key_in_use', IN_USE_MESSAGE, {
    headers: { 'retry-after': RETRY_AFTER_SECONDS },
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
  return { status: reply.statusCode, headers: keptHeaders(reply), body };
}

function keptHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined)
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}
