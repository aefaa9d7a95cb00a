import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** Largest JSON-RPC answer read, in bytes once decompressed (viem's own default). */
const MAX_BODY_BYTES = 10_485_760;
/** Redirects (307/308, which keep the method and body) followed before giving up. */
const MAX_REDIRECTS = 5;

export class RpcBodyTooLargeError extends Error {
  constructor() {
    super(`the RPC answer is larger than ${MAX_BODY_BYTES} bytes`);
    this.name = 'RpcBodyTooLargeError';
  }
}

/**
 * The `fetch` viem's http transport calls, made of `node:http` with keep-alive sockets. A
 * JSON-RPC call through the global `fetch` cost 2-3 times the CPU of the same call over
 * `node:http` (measured in one process, client and server: ~500-700 µs against ~210-230 µs),
 * and a link's `/pay` makes one per request. It does what the transport needs, as `fetch` does
 * it: POST a body, honour the abort signal (the transport's timeout), ask for and undo gzip,
 * deflate and brotli, follow 307 and 308 redirects (the ones that keep a POST a POST), go
 * through the proxy of `NODE_USE_ENV_PROXY` when Node is told to, and answer a Response whose
 * body is read already (viem reads it with `text()`). Connections per host are not capped, as
 * `fetch` caps none: a burst of calls waits on the RPC, not on a socket.
 */
export function createRpcFetch(): typeof fetch {
  // The proxy settings Node gave its own agents (set when NODE_USE_ENV_PROXY=1 or
  // --use-env-proxy), so a proxied deployment reaches its RPC as `fetch` did.
  const proxyOf = (agent: http.Agent) =>
    (agent as http.Agent & { options?: { proxyEnv?: NodeJS.ProcessEnv } }).options?.proxyEnv;
  const httpProxy = proxyOf(http.globalAgent);
  const httpsProxy = proxyOf(https.globalAgent);
  const agents = {
    'http:': new http.Agent({ keepAlive: true, ...(httpProxy && { proxyEnv: httpProxy }) }),
    'https:': new https.Agent({ keepAlive: true, ...(httpsProxy && { proxyEnv: httpsProxy }) }),
  };

  const call = (url: URL, init: RequestInit, hops: number): Promise<Response> =>
    new Promise((resolve, reject) => {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        reject(new TypeError(`cannot call an RPC over ${url.protocol}`));
        return;
      }
      const send = url.protocol === 'https:' ? https.request : http.request;
      const given = init.headers;
      // viem hands a plain object; anything else is normalised.
      const headers: Record<string, string> = {
        ...(given === undefined || (typeof given === 'object' && given.constructor === Object)
          ? (given as Record<string, string> | undefined)
          : Object.fromEntries(new Headers(given).entries())),
        'accept-encoding': 'gzip, deflate, br',
      };
      const request = send(
        url,
        {
          method: init.method ?? 'GET',
          headers,
          agent: agents[url.protocol],
          ...(init.signal && { signal: init.signal }),
        },
        (response) => {
          const status = response.statusCode ?? 0;
          const location = response.headers.location;
          if ((status === 307 || status === 308) && location !== undefined) {
            response.resume();
            if (hops >= MAX_REDIRECTS) {
              reject(new TypeError(`the RPC redirected more than ${MAX_REDIRECTS} times`));
              return;
            }
            call(new URL(location, url), init, hops + 1).then(resolve, reject);
            return;
          }
          readAnswer(response, url, hops > 0).then(resolve, reject);
        },
      );
      request.on('error', reject);
      request.end(typeof init.body === 'string' ? init.body : undefined);
    });

  const rpcFetch = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> =>
    call(new URL(typeof input === 'string' || input instanceof URL ? input : input.url), init, 0);
  return rpcFetch as typeof fetch;
}

/** The answer's body, decompressed and capped, as a Response that holds it already. */
function readAnswer(response: IncomingMessage, url: URL, redirected: boolean): Promise<Response> {
  return new Promise((resolve, reject) => {
    const encoding = String(response.headers['content-encoding'] ?? '')
      .trim()
      .toLowerCase();
    const decoder =
      encoding === 'gzip' || encoding === 'x-gzip'
        ? createGunzip()
        : encoding === 'deflate'
          ? createInflate()
          : encoding === 'br'
            ? createBrotliDecompress()
            : null;
    const body: Readable = decoder ? response.pipe(decoder) : response;
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: Error) => {
      response.destroy();
      decoder?.destroy();
      reject(error);
    };
    response.on('error', fail);
    body.on('error', fail);
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        fail(new RpcBodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    });
    body.on('end', () => {
      const status = response.statusCode ?? 0;
      const headers = new Headers();
      for (const [name, value] of Object.entries(response.headers)) {
        // The body handed on is decoded: its encoding and length no longer describe it.
        if (value === undefined || (decoder && /^content-(encoding|length)$/.test(name))) continue;
        for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({
        ok: status >= 200 && status < 300,
        status,
        statusText: response.statusMessage ?? '',
        headers,
        url: url.href,
        redirected,
        body: null,
        bodyUsed: false,
        text: async () => text,
        json: async () => JSON.parse(text) as unknown,
      } as unknown as Response);
    });
  });
}
