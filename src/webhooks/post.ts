import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';

/** Bytes of a receiver's answer we keep for the delivery log. */
const MAX_RESPONSE_BYTES = 2_048;

export type PostOutcome =
  | { readonly kind: 'answered'; readonly statusCode: number; readonly body: string }
  | { readonly kind: 'failed'; readonly error: string };

/**
 * One POST, no redirects followed (a redirect is an answer, not a success), a hard timeout for
 * the whole exchange, and the DNS lookup given (the SSRF guard). Never throws.
 */
export function postJson(
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  options: { readonly timeoutMs: number; readonly lookup: LookupFunction },
): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      target,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        lookup: options.lookup,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        response.on('end', () =>
          finish({
            kind: 'answered',
            statusCode: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8').slice(0, MAX_RESPONSE_BYTES),
          }),
        );
        response.on('error', (error) => finish({ kind: 'failed', error: error.message }));
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    request.on('error', (error) => finish({ kind: 'failed', error: error.message }));
    request.end(body);
  });
}
