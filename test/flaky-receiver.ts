import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver on loopback that a test switches between answering 200 and failing as
 * receivers do: answering only after the sender has given up, cutting the connection without
 * an answer, and answering 500. Every request is recorded with the mode it met, so a test can
 * count the attempts each delivery took and see when each came.
 */

type ReceiverFault = 'ok' | 'slow' | 'drop' | 'error';

export interface Arrival {
  readonly deliveryId: string;
  readonly retryCount: number;
  readonly event: string;
  readonly mode: ReceiverFault;
  readonly at: number;
}

export interface FlakyReceiver {
  readonly url: string;
  readonly arrivals: Arrival[];
  set(mode: ReceiverFault): void;
  /** Resolves once `count` different deliveries have been answered 200, or rejects. */
  waitForDelivered(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFlakyReceiver(options: { slowMs: number }): Promise<FlakyReceiver> {
  let mode: ReceiverFault = 'ok';
  const arrivals: Arrival[] = [];
  const held = new Set<ServerResponse>();
  const delivered = () =>
    new Set(arrivals.filter((a) => a.mode === 'ok').map((a) => a.deliveryId)).size;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const current = mode;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event?: string };
      arrivals.push({
        deliveryId: String(request.headers['x-request-network-delivery']),
        retryCount: Number(request.headers['x-request-network-retry-count']),
        event: String(body.event),
        mode: current,
        at: Date.now(),
      });
      switch (current) {
        case 'ok':
          response.writeHead(200).end('ok');
          return;
        case 'slow': {
          // The answer comes after the sender's timeout: a 200 it never reads.
          held.add(response);
          const timer = setTimeout(() => response.writeHead(200).end('late'), options.slowMs);
          response.on('close', () => {
            clearTimeout(timer);
            held.delete(response);
          });
          return;
        }
        case 'drop':
          request.socket.destroy();
          return;
        case 'error':
          response.writeHead(500).end('down');
          return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    set: (next) => {
      mode = next;
    },
    async waitForDelivered(count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (delivered() < count) {
        if (Date.now() > deadline) {
          throw new Error(`only ${delivered()} of ${count} deliveries answered 200`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.socket?.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
