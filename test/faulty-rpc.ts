import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient, http, type PublicClient } from 'viem';
import { type LocalChain, startLocalChain } from '../src/sandbox/chain.ts';
import { serveJsonRpc } from '../src/sandbox/rpc-server.ts';

/**
 * An HTTP proxy on loopback between payreq and a chain's JSON-RPC that a test switches between
 * passing calls through and failing them in the ways real providers do: a dropped connection,
 * a 502 from a gateway, a body that is not JSON, JSON-RPC answers whose results have the wrong
 * shape, a JSON-RPC internal error, and no answer at all.
 */

export type RpcFault =
  | 'pass'
  | 'drop'
  | 'bad_gateway'
  | 'not_json'
  | 'wrong_result'
  | 'rpc_error'
  | 'hang';

export interface FaultyRpc {
  readonly url: string;
  /** Calls answered in each mode since the start, to show each fault was met. */
  readonly answered: Record<RpcFault, number>;
  /** JSON-RPC calls received by method, whatever the mode: to tell one caller's from another's. */
  readonly methods: Map<string, number>;
  set(mode: RpcFault): void;
  close(): Promise<void>;
}

export async function startFaultyRpc(upstream: string): Promise<FaultyRpc> {
  let mode: RpcFault = 'pass';
  const answered: Record<RpcFault, number> = {
    pass: 0,
    drop: 0,
    bad_gateway: 0,
    not_json: 0,
    wrong_result: 0,
    rpc_error: 0,
    hang: 0,
  };
  const methods = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const current = mode;
      answered[current]++;
      for (const method of methodsOf(body)) methods.set(method, (methods.get(method) ?? 0) + 1);
      switch (current) {
        case 'pass':
          void forward(upstream, body, response);
          return;
        case 'drop':
          request.socket.destroy();
          return;
        case 'bad_gateway':
          response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>502 Bad Gateway</h1>');
          return;
        case 'not_json':
          response.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0",');
          return;
        case 'wrong_result':
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(answerEach(body, () => ({ result: { unexpected: [1, 2] } }))));
          return;
        case 'rpc_error':
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(
              JSON.stringify(
                answerEach(body, () => ({ error: { code: -32603, message: 'internal error' } })),
              ),
            );
          return;
        case 'hang':
          // Held until the caller gives up or the proxy closes.
          hanging.add(response);
          response.on('close', () => hanging.delete(response));
          return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answered,
    methods,
    set: (next) => {
      mode = next;
      // A switch away from hanging lets go of the calls held so far, as a node that comes
      // back drops what it never answered.
      if (next !== 'hang') for (const response of hanging) response.socket?.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function forward(upstream: string, body: Buffer, response: ServerResponse): Promise<void> {
  try {
    const answer = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array(body),
    });
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(Buffer.from(await answer.arrayBuffer()));
  } catch {
    response.socket?.destroy();
  }
}

/** The methods a JSON-RPC call (or batch of them) asks for. */
function methodsOf(body: Buffer): string[] {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {}
  return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((call: unknown) =>
    typeof call === 'object' && call !== null && 'method' in call && typeof call.method === 'string'
      ? [call.method]
      : [],
  );
}

/** A JSON-RPC answer (or batch of them) to `body`, each with the request's id. */
function answerEach(body: Buffer, answer: () => Record<string, unknown>): unknown {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {}
  const one = (call: unknown) => ({
    jsonrpc: '2.0',
    id: typeof call === 'object' && call !== null && 'id' in call ? call.id : null,
    ...answer(),
  });
  return Array.isArray(parsed) ? parsed.map(one) : one(parsed);
}

/** A local chain, served over HTTP behind a faulty proxy, and a client that reads through it. */
export interface ChainBehindProxy {
  readonly chain: LocalChain;
  readonly proxy: FaultyRpc;
  /** Reads through the proxy, with no retry of its own: each call meets the proxy's mode. */
  readonly client: PublicClient;
  close(): Promise<void>;
}

export async function chainBehindFaultyRpc(chainId = 8453): Promise<ChainBehindProxy> {
  const chain = await startLocalChain({ chainId });
  const rpc = await serveJsonRpc(chain.provider);
  const proxy = await startFaultyRpc(rpc.url);
  return {
    chain,
    proxy,
    client: createPublicClient({ transport: http(proxy.url, { retryCount: 0 }) }),
    async close() {
      await proxy.close();
      await rpc.close();
      await chain.close();
    },
  };
}
