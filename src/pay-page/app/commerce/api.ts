import type { PageConfig } from '../config.ts';
import { createTokenClient, type ViewState, type WalletCall } from '../token-page/api.ts';

/**
 * The API calls of a commerce payment's page, by its pay token: the payment as its buyer sees
 * it, the transactions the buyer's wallet sends (to authorize, or to reclaim an expired hold),
 * and the word that the authorization was sent.
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
  /** Something is held past the authorization's expiry (by the chain's clock): the buyer's to take back. */
  readonly canReclaim: boolean;
  readonly merchant: string;
  readonly merchantId: string;
  readonly buyer: string | null;
  readonly preApprovalExpiry: string;
  readonly authorizationExpiry: string;
  readonly refundExpiry: string;
}

export interface CommerceApi {
  view(token: string): Promise<ViewState<CommerceView>>;
  /** The approval (when the allowance is short), then `authorizePayment` for `wallet`. */
  transactions(token: string, wallet: string): Promise<readonly WalletCall[]>;
  authorized(token: string, txHash: string): Promise<void>;
  /** `reclaimPayment`, for the payer's `wallet` once the authorization has expired. */
  reclaim(token: string, wallet: string): Promise<readonly WalletCall[]>;
}

export function createCommerceApi(config: PageConfig): CommerceApi {
  const client = createTokenClient(config, '/v2/commerce-payments/token');
  const forWallet = (wallet: string) => `?wallet=${encodeURIComponent(wallet)}`;
  return {
    view: (token) => client.view<CommerceView>(token),
    transactions: (token, wallet) => client.transactions(token, `/authorize${forWallet(wallet)}`),
    authorized: (token, txHash) => client.post(token, '/authorization', { txHash }),
    reclaim: (token, wallet) => client.transactions(token, `/reclaim${forWallet(wallet)}`),
  };
}
