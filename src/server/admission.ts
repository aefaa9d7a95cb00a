import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AdmissionLimits } from '../http/budgets.ts';
import { errorEnvelope } from '../http/envelope.ts';

/**
 * Admission control: at most `maxInFlight` requests run at once; up to `maxQueue` more wait,
 * each for at most `maxWaitMs`; beyond that a request is refused at once with 503 and
 * `Retry-After`. The embedded database (PGlite) runs one statement at a time on the main
 * thread, so without a bound every request slows down as load grows until all of them wait
 * for seconds; with it, admitted requests stay fast and the rest learn quickly to come back.
 * Postgres needs no such gate (its own pool queues), so it is off there unless configured.
 */
/** Seconds a refused caller is told to wait. */
const ADMISSION_RETRY_AFTER_SECONDS = 1;

export interface AdmissionGate {
  /** Resolves true once the caller may run (call `release` when done), false when refused. */
  acquire(): Promise<boolean>;
  release(): void;
  readonly inFlight: number;
  readonly queued: number;
}

export function createAdmissionGate(limits: AdmissionLimits): AdmissionGate {
  let inFlight = 0;
  const waiting: { admit: () => void }[] = [];
  return {
    get inFlight() {
      return inFlight;
    },
    get queued() {
      return waiting.length;
    },
    acquire() {
      if (inFlight < limits.maxInFlight) {
        inFlight += 1;
        return Promise.resolve(true);
      }
      if (waiting.length >= limits.maxQueue) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const entry = {
          admit: () => {
            clearTimeout(timer);
            resolve(true);
          },
        };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(entry), 1);
          resolve(false);
        }, limits.maxWaitMs);
        waiting.push(entry);
      });
    },
    release() {
      const next = waiting.shift();
      // The slot passes straight to the longest waiter: inFlight stays the same.
      if (next) next.admit();
      else inFlight -= 1;
    },
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route touches no database and is never queued (health, static assets). */
    admission?: false;
  }
}

/**
 * The refusal, serialised once. Under overload refusals come by the thousand a second (a client
 * that ignores Retry-After asks again at once), and each takes time from the requests admitted:
 * it is sent straight from the hook, the envelope an AppError would give, without building an
 * error (its stack trace) or going through the error handler.
 */
const BUSY_BODY = JSON.stringify(
  errorEnvelope(503, 'The server is busy; retry shortly', { code: 'server_busy' }),
);

function refuse(reply: FastifyReply): FastifyReply {
  return reply
    .code(503)
    .header('retry-after', String(ADMISSION_RETRY_AFTER_SECONDS))
    .header('content-type', 'application/json; charset=utf-8')
    .send(BUSY_BODY);
}

/**
 * Puts every routed request through the gate, first of all hooks so that a refused request
 * costs no credential lookup. A slot is held until the response is finished or the client goes
 * away, whichever comes first.
 */
export function installAdmission(app: FastifyInstance, limits: AdmissionLimits): AdmissionGate {
  const gate = createAdmissionGate(limits);
  const held = new WeakSet<object>();
  const release = (request: object) => {
    if (!held.delete(request)) return;
    gate.release();
  };
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    if (request.routeOptions.url === undefined) return;
    if (request.routeOptions.config.admission === false) return;
    if (!(await gate.acquire())) return refuse(reply);
    held.add(request);
    // A client that went away while it waited will never see its answer: its slot goes on.
    if (reply.raw.closed || request.raw.socket?.destroyed) {
      release(request);
      return refuse(reply);
    }
    // Whichever comes first: the answer is sent, or the client went away before it was.
    reply.raw.once('close', () => release(request));
  });
  app.addHook('onResponse', async (request) => release(request));
  app.addHook('onRequestAbort', async (request) => release(request));
  return gate;
}
