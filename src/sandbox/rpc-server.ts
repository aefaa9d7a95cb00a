import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Eip1193Provider } from './chain.ts';
import { answerJsonRpc } from './json-rpc.ts';

/** Largest request body accepted, in bytes. */
const MAX_BODY_BYTES = 5_000_000;

/**
 * Serves a local chain's JSON-RPC on `host` (loopback unless told), so a separate payreq process
 * can use it: as a network's `RPC_URL_<NETWORK>` in tests, or as the deployment's sandbox chain.
 * The URL it returns is how others reach it: on a wildcard address, by this machine's name.
 */
export async function serveJsonRpc(
  provider: Eip1193Provider,
  options: { readonly host?: string; readonly port?: number } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const host = options.host ?? '127.0.0.1';
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) request.destroy();
      else chunks.push(chunk);
    });
    request.on('end', () => {
      // For processes, not pages: a browser's call (it sends Origin) gets only what any page
      // may ask, as on /sandbox/rpc.
      answerBody(provider, Buffer.concat(chunks), request.headers.origin !== undefined).then(
        (answer) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(answer));
        },
        () => {
          response.writeHead(500);
          response.end();
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  const reachable = host === '0.0.0.0' || host === '::' ? hostname() : host;
  return {
    url: `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answerBody(
  provider: Eip1193Provider,
  raw: Buffer,
  fromBrowser: boolean,
): Promise<unknown> {
  let body: unknown = null;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {}
  if (body === null) {
    return { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
  }
  return answerJsonRpc(provider, body, { fromBrowser });
}
