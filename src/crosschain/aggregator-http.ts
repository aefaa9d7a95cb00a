/**
 * One call to the routing aggregator over HTTP, bounded in time, its outcome sorted for the
 * circuit breaker: an `AggregatorFailure` is the aggregator failing (the breaker counts it), an
 * `AggregatorRefusal` is the aggregator answering "no" to this request (it does not). Messages
 * name the operation only: never the URL's host or the API key.
 */

/** Characters of a refusal's message kept: it may end up in a log or an answer. */
const MAX_REFUSAL_MESSAGE = 300;

type FailureReason = 'timeout' | 'network' | 'http' | 'bad_response';

export class AggregatorFailure extends Error {
  readonly reason: FailureReason;
  /** The HTTP status of an `http` failure; null otherwise. */
  readonly status: number | null;

  constructor(reason: FailureReason, status: number | null, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'AggregatorFailure';
    this.reason = reason;
    this.status = status;
  }
}

/** A 4xx other than 408 and 429: this request has no answer, however often it is asked. */
export class AggregatorRefusal extends Error {
  readonly status: number;
  /** The aggregator's own error code (LI.FI's `code`, e.g. 1002 "no quotes"); null without one. */
  readonly aggregatorCode: number | null;

  constructor(status: number, aggregatorCode: number | null, message: string) {
    super(message);
    this.name = 'AggregatorRefusal';
    this.status = status;
    this.aggregatorCode = aggregatorCode;
  }
}

export interface AggregatorHttp {
  readonly baseUrl: string;
  readonly apiKey: string | null;
  readonly timeoutMs: number;
  readonly fetch: typeof fetch;
}

export type AggregatorRequest =
  | { readonly method: 'GET'; readonly path: string; readonly query: Record<string, string> }
  | { readonly method: 'POST'; readonly path: string; readonly body: unknown };

/** The answer's JSON; throws `AggregatorFailure` or `AggregatorRefusal`. */
export async function callAggregator(
  http: AggregatorHttp,
  call: AggregatorRequest,
): Promise<unknown> {
  const url = new URL(`${http.baseUrl}${call.path}`);
  if (call.method === 'GET') {
    for (const [name, value] of Object.entries(call.query)) url.searchParams.set(name, value);
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (http.apiKey !== null) headers['x-lifi-api-key'] = http.apiKey;
  if (call.method === 'POST') headers['content-type'] = 'application/json';
  const operation = `${call.method} ${call.path}`;
  const signal = AbortSignal.timeout(http.timeoutMs);
  let status: number;
  let text: string;
  try {
    const response = await http.fetch(url, {
      method: call.method,
      headers,
      signal,
      redirect: 'error',
      ...(call.method === 'POST' && { body: JSON.stringify(call.body) }),
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    if (signal.aborted) {
      throw new AggregatorFailure(
        'timeout',
        null,
        `${operation}: no answer within ${http.timeoutMs} ms`,
        error,
      );
    }
    throw new AggregatorFailure('network', null, `${operation}: could not be reached`, error);
  }
  const json = parseJson(text);
  if (status >= 200 && status < 300) {
    if (json === undefined) {
      throw new AggregatorFailure('bad_response', status, `${operation}: answered no JSON`);
    }
    return json;
  }
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
    const { code, message } = errorBody(json);
    throw new AggregatorRefusal(
      status,
      code,
      (message ?? `${operation} answered HTTP ${status}`).slice(0, MAX_REFUSAL_MESSAGE),
    );
  }
  throw new AggregatorFailure('http', status, `${operation}: answered HTTP ${status}`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** LI.FI's error body: `{message, code}`. */
function errorBody(json: unknown): { code: number | null; message: string | null } {
  if (typeof json !== 'object' || json === null) return { code: null, message: null };
  const { code, message } = json as { code?: unknown; message?: unknown };
  return {
    code: typeof code === 'number' && Number.isInteger(code) ? code : null,
    message: typeof message === 'string' && message !== '' ? message : null,
  };
}
