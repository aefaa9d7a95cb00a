import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { createPublicClient, http, RpcRequestError, TimeoutError } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcFetch, RpcBodyTooLargeError } from './rpc-fetch.ts';

/**
 * viem's http transport over `createRpcFetch`, against a real JSON-RPC server on loopback: the
 * answers, the errors and the timeout viem makes of them are those it makes over `fetch`.
 */

type Handler = (
  body: { id: number; method: string },
  response: ServerResponse,
  request: IncomingMessage,
) => void;
let server: Server;
let url: string;
let handler: Handler;
const sockets = new Set<unknown>();
const requests: IncomingMessage[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    sockets.add(request.socket);
    requests.push(request);
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => handler(JSON.parse(text), response, request));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = (timeout = 2_000) =>
  createPublicClient({
    transport: http(url, { fetchFn: createRpcFetch(), timeout, retryCount: 0 }),
  });

const answer = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

describe('createRpcFetch under viem', () => {
  it('answers JSON-RPC results and keeps one connection for calls in a row', async () => {
    handler = (body, response) =>
      answer(response, 200, { jsonrpc: '2.0', id: body.id, result: '0x2a' });
    sockets.clear();
    requests.length = 0;
    const rpc = client();
    for (let i = 0; i < 5; i++) expect(await rpc.getBlockNumber({ cacheTime: 0 })).toBe(42n);
    expect(sockets.size).toBe(1);
    expect(requests[0]?.method).toBe('POST');
    expect(requests[0]?.headers['content-type']).toBe('application/json');
  });

  it('fails as viem fails over fetch: a JSON-RPC error on 200 or 500, a bare 502', async () => {
    const cases: [number, string | { error: { code: number; message: string } }][] = [
      [200, { error: { code: -32000, message: 'header not found' } }],
      [500, { error: { code: -32000, message: 'header not found' } }],
      [502, 'bad gateway'],
    ];
    for (const [status, body] of cases) {
      handler = (request, response) => {
        if (typeof body !== 'string') {
          answer(response, status, { jsonrpc: '2.0', id: request.id, ...body });
          return;
        }
        response.writeHead(status);
        response.end(body);
      };
      const failures = [];
      for (const fetchFn of [createRpcFetch(), fetch]) {
        const rpc = createPublicClient({ transport: http(url, { fetchFn, retryCount: 0 }) });
        const failure = (await rpc.getBlockNumber({ cacheTime: 0 }).catch((e: unknown) => e)) as {
          name: string;
          shortMessage: string;
          walk(fn: (e: unknown) => boolean): unknown;
        };
        failures.push({
          name: failure.name,
          shortMessage: failure.shortMessage,
          rpcError: failure.walk((e) => e instanceof RpcRequestError) !== null,
        });
      }
      expect(failures[0], `status ${status}`).toEqual(failures[1]);
    }
  });

  it('follows a 307 or 308 with the same POST and body, and undoes gzip and brotli', async () => {
    for (const [status, encode] of [
      [307, gzipSync],
      [308, brotliCompressSync],
    ] as const) {
      handler = (body, response, request) => {
        if (request.url === '/') {
          response.writeHead(status, { location: '/moved' });
          response.end();
          return;
        }
        const encoding = status === 307 ? 'gzip' : 'br';
        expect(request.headers['accept-encoding']).toContain(encoding);
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': encoding,
        });
        response.end(encode(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: '0x2a' })));
      };
      requests.length = 0;
      expect(await client().getBlockNumber({ cacheTime: 0 })).toBe(42n);
      expect(requests.map((r) => [r.method, r.url])).toEqual([
        ['POST', '/'],
        ['POST', '/moved'],
      ]);
    }
  });

  it('keeps no cap on connections: a burst of slow calls is in flight at once', async () => {
    let open = 0;
    let most = 0;
    handler = (body, response) => {
      open += 1;
      most = Math.max(most, open);
      setTimeout(() => {
        open -= 1;
        answer(response, 200, { jsonrpc: '2.0', id: body.id, result: '0x1' });
      }, 200);
    };
    const rpcFetch = createRpcFetch();
    await Promise.all(
      Array.from({ length: 64 }, (_, id) =>
        rpcFetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_blockNumber' }),
        }),
      ),
    );
    expect(most).toBe(64);
  });

  it('gives up when the server does not answer within the timeout', async () => {
    handler = () => {};
    const failure = await client(200)
      .getBlockNumber({ cacheTime: 0 })
      .catch((error: unknown) => error);
    expect((failure as { walk(): unknown }).walk()).toBeInstanceOf(TimeoutError);
  });

  it('refuses an answer larger than 10 MiB without holding it', async () => {
    handler = (_body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"jsonrpc":"2.0","id":1,"result":"0x${'0'.repeat(11_000_000)}"}`);
    };
    await expect(
      createRpcFetch()(url, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      }),
    ).rejects.toBeInstanceOf(RpcBodyTooLargeError);
  });

  it('calls only over http and https', async () => {
    await expect(createRpcFetch()('file:///etc/passwd', { method: 'POST' })).rejects.toThrow(
      'cannot call an RPC over file:',
    );
  });
});
