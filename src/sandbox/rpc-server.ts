import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Eip1193Provider } from './chain.ts';
import { answerJsonRpc } from './json-rpc.ts';

/** Largest request body accepted, in bytes. */
const MAX_BODY_BYTES = 5_000_000;

/**
 * Serves a local chain's JSON-RPC on 127.0.0.1, so a separate payreq process can use it as a
 * network's `RPC_URL_<NETWORK>`. Loopback only.
 */
export async function serveJsonRpc(
  provider: Eip1193Provider,
  port = 0,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) request.destroy();
      else chunks.push(chunk);
    });
    request.on('end', async () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = null;
      }
      const answer =
        body === null
          ? { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }
          : await answerJsonRpc(provider, body);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
