import type { PageConfig } from '../config.ts';
import { createTokenClient, type ViewState, type WalletCall } from '../token-page/api.ts';

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

export interface RecurringApi {
  view(token: string): Promise<ViewState<RecurringView>>;
  /** The approvals the payer's wallet must send first (none when the allowance is enough). */
  approvals(token: string, wallet: string): Promise<readonly WalletCall[]>;
  activate(token: string, permitSignature: string): Promise<void>;
}

export function createRecurringApi(config: PageConfig): RecurringApi {
  const client = createTokenClient(config, '/v2/payouts/recurring/token');
  return {
    view: (token) => client.view<RecurringView>(token),
    approvals: (token, wallet) =>
      client.transactions(token, `/approval?wallet=${encodeURIComponent(wallet)}`),
    activate: (token, permitSignature) => client.post(token, '', { permitSignature }),
  };
}
