import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real HTTP endpoint on loopback that records what payreq delivers to it. */
interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  readonly body: Record<string, unknown>;
  readonly at: number;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Answer the next requests with these statuses (then 200). */
  respondWith(...statuses: number[]): void;
  /**
   * From now on, answer as a receiver written for the reference API does: 400 without its
   * signature or delivery header, 401 when `x-request-network-signature` is not the hex
   * HMAC-SHA256 of the raw body under `secret`. Refused deliveries are kept in `refused`.
   */
  verifyWith(secret: string): void;
  readonly refused: Received[];
  /** Resolves when at least `count` deliveries have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const refused: Received[] = [];
  let secret: string | null = null;
  const queued: number[] = [];
  /** Callers of `waitFor`, each woken once `received` holds its count. */
  const waiters = new Set<{ readonly count: number; readonly wake: () => void }>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const rawBody = raw.toString('utf8');
      const delivery: Received = {
        headers: request.headers,
        rawBody,
        body: JSON.parse(rawBody),
        at: performance.now(),
      };
      const refusal = secret === null ? null : referenceCheck(delivery.headers, raw, secret);
      if (refusal !== null) {
        refused.push(delivery);
        response.statusCode = refusal;
        response.end('refused');
        return;
      }
      received.push(delivery);
      for (const waiter of waiters) if (received.length >= waiter.count) waiter.wake();
      response.statusCode = queued.shift() ?? 200;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    refused,
    respondWith: (...statuses) => queued.push(...statuses),
    verifyWith: (value) => {
      secret = value;
    },
    waitFor(count, timeoutMs = 10_000) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise<Received[]>((resolve, reject) => {
        const waiter = {
          count,
          wake: () => {
            waiters.delete(waiter);
            clearTimeout(timer);
            resolve(received);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`only ${received.length} of ${count} deliveries arrived`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The reference API's receiver rules, written with node:crypto alone; null means accept. */
function referenceCheck(headers: IncomingHttpHeaders, raw: Buffer, secret: string): number | null {
  const signature = headers['x-request-network-signature'];
  const delivery = headers['x-request-network-delivery'];
  if (typeof signature !== 'string' || typeof delivery !== 'string') return 400;
  const expected = createHmac('sha256', secret).update(raw).digest();
  const sent = Buffer.from(signature, 'hex');
  return sent.length === expected.length && timingSafeEqual(sent, expected) ? null : 401;
}
