import type { PageConfig } from './config.ts';

/** How the page asks the API: a JSON answer, or an ApiError with the service's code and message. */

export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  constructor(status: number, message: string, code: string | undefined) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Past this, a payer waiting on a silent service is told so rather than left on "Loading". */
export const ANSWER_WITHIN_MS = 15_000;

/** A JSON answer of the API, or an ApiError carrying the service's code and message. */
export function answerOf(config: PageConfig) {
  const headers = { 'x-client-id': config.clientId };
  return async <T>(path: string, init: RequestInit = { headers }): Promise<T> => {
    const response = await fetch(`${config.apiBase}${path}`, {
      ...init,
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) {
      throw new ApiError(
        response.status,
        String(body.message ?? 'The payment could not be prepared'),
        body.code as string | undefined,
      );
    }
    return body as T;
  };
}

/** Why the service could not be asked, in the payer's words. */
export function unreachable(error: unknown): string {
  return error instanceof DOMException && error.name === 'TimeoutError'
    ? 'The payment service is not answering. Try again in a moment.'
    : 'The payment service could not be reached. Check your connection and try again.';
}

export const tokenPath = (token: string) => `/v2/secure-payments/${encodeURIComponent(token)}`;
