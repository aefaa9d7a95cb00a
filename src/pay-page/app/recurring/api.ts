import { ApiError } from '../answer.ts';
import type { PageConfig } from '../config.ts';

/**
 * The API calls of a recurring payout's page, by its pay token: the schedule as its payer sees
 * it, the approval the payer's wallet still needs, and the signed permit.
 */

export type RecurringStatus = 'pending' | 'active' | 'paused' | 'completed' | 'cancelled';
export type Frequency = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';

/** `SchedulePermit` typed data as the API gives it: big numbers as decimal strings. */
export interface Permit {
  readonly domain: {
    readonly name: string;
    readonly version: string;
    readonly chainId: number;
    readonly verifyingContract: string;
  };
  readonly types: { readonly SchedulePermit: readonly { name: string; type: string }[] };
  readonly values: Readonly<Record<string, string | number | boolean>>;
}

export interface RecurringView {
  readonly id: string;
  readonly status: RecurringStatus;
  readonly network: string;
  readonly chainId: number;
  readonly currency: string;
  readonly amount: string;
  readonly feeAmount: string;
  readonly frequency: Frequency;
  readonly startDate: string;
  readonly paymentDates: readonly string[];
  readonly totalPayments: number;
  readonly processedPayments: number;
  readonly lastPaymentDate: string | null;
  readonly nextPaymentDate: string | null;
  readonly payer: string;
  readonly payee: string;
  readonly recurringPaymentPermit: Permit;
}

type RecurringState =
  | { readonly kind: 'found'; readonly view: RecurringView }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'error'; readonly message: string };

interface Approval {
  readonly to: `0x${string}`;
  readonly data: `0x${string}`;
  readonly value: { readonly hex: `0x${string}` };
}

export interface RecurringApi {
  view(token: string): Promise<RecurringState>;
  /** The approvals the payer's wallet must send first (none when the allowance is enough). */
  approvals(token: string, wallet: string): Promise<readonly Approval[]>;
  activate(token: string, permitSignature: string): Promise<void>;
}

const ANSWER_WITHIN_MS = 15_000;

export function createRecurringApi(config: PageConfig): RecurringApi {
  const headers = { 'x-client-id': config.clientId };
  const url = (token: string, rest = '') =>
    `${config.apiBase}/v2/payouts/recurring/token/${encodeURIComponent(token)}${rest}`;
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
        return { kind: 'found', view: (await call(url(token))) as unknown as RecurringView };
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
    async approvals(token, wallet) {
      const body = await call(url(token, `/approval?wallet=${encodeURIComponent(wallet)}`));
      return body.transactions as Approval[];
    },
    async activate(token, permitSignature) {
      await call(url(token), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ permitSignature }),
      });
    },
  };
}
