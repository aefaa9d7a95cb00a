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

/** Why the service refused the payer's wallet (src/screening/): the page says so plainly. */
export type PayerRefusal =
  | 'payer_not_allowed'
  | 'payer_screening_rejected'
  | 'payer_screening_unavailable';

const PAYER_REFUSALS: ReadonlySet<string> = new Set<PayerRefusal>([
  'payer_not_allowed',
  'payer_screening_rejected',
  'payer_screening_unavailable',
]);

/** The service refused calldata to this wallet: off the allowlist, screened out, or unscreened. */
export class PayerRefused extends Error {
  readonly refusal: PayerRefusal;
  readonly wallet: string;
  constructor(refusal: PayerRefusal, wallet: string) {
    super(refusal);
    this.refusal = refusal;
    this.wallet = wallet;
  }
}

function isPayerRefusal(code: string | undefined): code is PayerRefusal {
  return code !== undefined && PAYER_REFUSALS.has(code);
}

/** `asked` as is, or a PayerRefused naming `wallet` when the service refused that wallet. */
export async function forWallet<T>(asked: Promise<T>, wallet: string | undefined): Promise<T> {
  try {
    return await asked;
  } catch (error) {
    if (error instanceof ApiError && wallet !== undefined && isPayerRefusal(error.code)) {
      throw new PayerRefused(error.code, wallet);
    }
    throw error;
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
