import { ApiError } from '../answer.ts';
import type { PageConfig } from '../config.ts';

/**
 * The API calls of a commerce payment's page, by its pay token: the payment as its buyer sees
 * it, the transactions the buyer's wallet sends, and the word that the authorization was sent.
 */

export type CommerceStatus =
  | 'PENDING'
  | 'AUTHORIZING'
  | 'AUTHORIZED'
  | 'CAPTURING'
  | 'PAID'
  | 'VOIDING'
  | 'VOIDED'
  | 'REFUNDING'
  | 'REFUNDED'
  | 'PARTIALLY_REFUNDED'
  | 'EXPIRED'
  | 'RECLAIMED'
  | 'FAILED';

export interface CommerceView {
  readonly requestId: string;
  readonly status: CommerceStatus;
  readonly network: string;
  readonly chainId: number;
  readonly currency: string;
  readonly token: string;
  readonly decimals: number;
  readonly amount: string;
  readonly maxAmount: string;
  readonly heldAmount: string;
  readonly capturedAmount: string;
  readonly refundedAmount: string;
  readonly merchant: string;
  readonly merchantId: string;
  readonly buyer: string | null;
  readonly preApprovalExpiry: string;
  readonly authorizationExpiry: string;
  readonly refundExpiry: string;
}

type CommerceState =
  | { readonly kind: 'found'; readonly view: CommerceView }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'error'; readonly message: string };

interface WalletCall {
  readonly to: `0x${string}`;
  readonly data: `0x${string}`;
  readonly value: { readonly hex: `0x${string}` };
}

export interface CommerceApi {
  view(token: string): Promise<CommerceState>;
  /** The approval (when the allowance is short), then `authorizePayment` for `wallet`. */
  transactions(token: string, wallet: string): Promise<readonly WalletCall[]>;
  authorized(token: string, txHash: string): Promise<void>;
}

const ANSWER_WITHIN_MS = 15_000;

export function createCommerceApi(config: PageConfig): CommerceApi {
  const headers = { 'x-client-id': config.clientId };
  const url = (token: string, rest = '') =>
    `${config.apiBase}/v2/commerce-payments/token/${encodeURIComponent(token)}${rest}`;
  const call = async (target: string, init: RequestInit = {}) => {
    const response = await fetch(target, {
      ...init,
      headers: { ...headers, ...init.headers },
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) {
      throw new ApiError(
        response.status,
        String(body.message ?? `The service answered ${response.status}`),
        body.code as string | undefined,
      );
    }
    return body;
  };
  return {
    async view(token) {
      try {
        return { kind: 'found', view: (await call(url(token))) as unknown as CommerceView };
      } catch (error) {
        if (error instanceof ApiError) {
          return error.status === 404
            ? { kind: 'not_found' }
            : { kind: 'error', message: error.message };
        }
        return {
          kind: 'error',
          message:
            error instanceof DOMException && error.name === 'TimeoutError'
              ? 'The payment service is not answering. Try again in a moment.'
              : 'The payment service could not be reached. Check your connection and try again.',
        };
      }
    },
    async transactions(token, wallet) {
      const body = await call(url(token, `/authorize?wallet=${encodeURIComponent(wallet)}`));
      return body.transactions as WalletCall[];
    },
    async authorized(token, txHash) {
      await call(url(token, '/authorization'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ txHash }),
      });
    },
  };
}
