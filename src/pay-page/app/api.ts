import { ANSWER_WITHIN_MS, answerOf, forWallet, tokenPath, unreachable } from './answer.ts';
import type { Calldata } from './calldata.ts';
import type { PageConfig } from './config.ts';
import type { SafeCalldata, SafeIntent } from './safe-calldata.ts';
import { type SafePending, safePendingOf } from './safe-pending.ts';

/** The public API's answers the page reads, as far as it reads them. */

interface Destination {
  readonly destinationId?: string;
  readonly payeeAddress: string;
  readonly walletAddress: string;
  readonly network: string;
  readonly isMasked: boolean;
}

export interface Branding {
  readonly logoPath?: string;
  readonly pageBackgroundColor?: string;
  readonly cardBackgroundColor?: string;
  readonly primaryActionColor?: string;
  readonly primaryTextColor?: string;
  readonly secondaryTextColor?: string;
  readonly termsPath?: string;
  readonly privacyPath?: string;
}

/** What every kind of link tells the page. */
interface LinkCommon {
  readonly status: string;
  readonly token: string;
  readonly redirectUrl: string | null;
  readonly redirectLabel: string;
  readonly branding: Branding | null;
  readonly requestIds: readonly string[];
  readonly network: string;
  readonly expiresAt: string;
  /** Present on payout links: money going out of `creatorWalletAddress`, the only payer. */
  readonly payout?: true;
  readonly creatorWalletAddress?: string | null;
}

/** A fee of the link's plan, as far as the page shows it. */
interface PlanFee {
  readonly type: string;
  readonly label: string;
  readonly feeBearer: 'payer' | 'payee';
  readonly calculatedAmountUsd: string;
}

/**
 * The link's fee plan (the fields the page shows); null for a link without one. Its amounts
 * are in USD, the unit of the USD stablecoin a link with a plan is paid in.
 */
export type FeePlan = {
  readonly totalFeesUsd: string;
  /** What the payer sends: the amount, and the payer-borne fees on top of it. */
  readonly payerTotalAmountUsd: string;
  readonly payerBorneFeesUsd: string;
  readonly fees: readonly PlanFee[];
} | null;

/** A transfer from another chain recorded on the link (payreq's), and where it stands. */
interface BridgeTransfer {
  readonly txHash: string;
  readonly status: 'bridging' | 'delivered' | 'executed' | 'failed' | 'refunded';
}

interface DisplayCommon extends LinkCommon {
  readonly reference: string | null;
  readonly feePlan: FeePlan;
  readonly bridgeTransfers?: readonly BridgeTransfer[];
}

/** Why a child of a multicall cannot be paid now (the server's `blockReason`). */
export type BlockReason =
  | 'not_found'
  | 'not_owned'
  | 'not_outgoing'
  | 'not_single_payment'
  | 'invalid_child_linkage'
  | 'already_paid'
  | 'request_processing'
  | 'secure_payment_expired'
  | 'secure_payment_not_pending'
  | 'compliance_failed'
  | 'not_payable_child';

export interface MulticallChild {
  readonly securePaymentToken: string;
  readonly position: number;
  readonly executable: boolean;
  readonly blockReason: BlockReason | null;
  /** Null only for a child whose currency this server no longer knows. */
  readonly amount: string | null;
  /** What it still wants: its amount, less what was paid of it already. */
  readonly due: string | null;
  readonly payee: string | null;
  readonly paymentCurrency: string | null;
  readonly reference: string | null;
  /** The child's own network (`base`): a parent's children may be on several. */
  readonly network: string;
}

/**
 * A multicall payout: several payout links of one creator paid in one transaction. Only the
 * `executable` children are paid; the totals are what those still want, per currency.
 */
export interface MulticallDisplay extends LinkCommon {
  readonly paymentType: 'multicall';
  readonly canExecute: boolean;
  /** `evm_cross_chain`: paid from one source chain and token the creator picks. */
  readonly executionKind: 'evm_same_chain' | 'evm_cross_chain' | 'tron_batch';
  readonly children: readonly MulticallChild[];
  readonly totals: {
    readonly childCount: number;
    readonly blockedChildCount: number;
    readonly byDestinationCurrency: readonly {
      readonly currency: string;
      readonly totalAmount: string;
    }[];
  };
}

export type Display =
  | MulticallDisplay
  | (DisplayCommon & {
      readonly paymentType: 'single';
      readonly payee: string;
      /** In `invoiceCurrency` when the link is written in fiat, else in `paymentCurrency`. */
      readonly amount: string;
      readonly paymentCurrency: string;
      readonly destination: Destination | null;
      /** A link in fiat (payreq's): paid in `paymentCurrency` at the rate `/pay` quotes. */
      readonly invoiceCurrency?: string;
      readonly invoiceAmount?: string;
    })
  | (DisplayCommon & {
      readonly paymentType: 'batch';
      readonly payees: readonly string[];
      readonly amounts: readonly string[];
      readonly paymentCurrencies: readonly string[];
      /** When some requests are in fiat: what each amount is written in. */
      readonly invoiceCurrencies?: readonly string[];
      readonly destinations: readonly (Destination | null)[];
    });

/** A link that pays its own requests: one, or a batch of them. */
export type SingleOrBatchDisplay = Exclude<Display, MulticallDisplay>;

/**
 * A completed link (its 409). Past the reference's fields, payreq's own are optional here: the
 * page reads them where the server gives them and shows less where it does not.
 */
export interface Completed {
  readonly branding?: Branding | null;
  /** The network of the transactions. */
  readonly network?: string;
  /** The merchant's way back. */
  readonly redirectUrl?: string | null;
  readonly redirectLabel?: string;
  /** What the receipt shows: the merchant's reference, the plan paid under, when. */
  readonly reference?: string | null;
  readonly feePlan?: FeePlan;
  readonly paidAt?: string | null;
  /** The plan's fee legs as paid on chain, each paid or outstanding. */
  readonly feeLegs?: readonly {
    readonly type: string;
    readonly label: string;
    readonly feeBearer: 'payer' | 'payee';
    readonly amount: string;
    readonly currency: string;
    readonly status: 'paid' | 'outstanding';
    readonly txHash: string | null;
  }[];
  readonly requestStatuses: readonly {
    readonly requestId: string;
    readonly hasBeenPaid: boolean;
    readonly txHash: string | null;
    readonly payee?: string;
    readonly amount?: string;
    /** What the amount is in: a currency id (`USDC-base`), or a fiat code. */
    readonly currency?: string;
  }[];
}

/** What GET /v2/secure-payments/{token} says about a link. */
export type LinkState =
  | { readonly kind: 'payable'; readonly display: Display }
  | { readonly kind: 'completed'; readonly completed: Completed }
  /** A 423 naming a Safe transaction: the link waits for the Safe (safe-pending.ts). */
  | {
      readonly kind: 'safe_pending';
      readonly pending: SafePending;
      readonly branding: Branding | null;
    }
  | { readonly kind: 'expired' | 'invalidated' | 'blocked' | 'not_found' | 'in_progress' }
  | { readonly kind: 'error'; readonly message: string };

export interface Api {
  link(token: string): Promise<LinkState>;
  /** Without a wallet: the steps anyone would send, and a fiat link's quote. */
  /** `/pay` for `wallet`; with `eoaWallet`, for a smart account paying with that EOA's tokens. */
  calldata(token: string, wallet?: string, eoaWallet?: string): Promise<Calldata>;
  /** `/pay` for a Safe (`isSafe=true`): the one Safe transaction its owners sign. */
  safeCalldata(token: string, safe: string): Promise<SafeCalldata>;
  /** Records a Safe transaction being signed: the link answers 423 until tracking ends. */
  recordSafeIntent(token: string, intent: SafeIntent): Promise<{ safePaymentDeadline?: number }>;
  /** Best effort: a lost report changes nothing for the payer. */
  userEvent(token: string, event: UserEvent): Promise<void>;
}

export interface UserEvent {
  readonly userEvent: 'wallet_connected' | 'payment_sent_to_wallet' | 'payment_approved_in_wallet';
  readonly occurredAt: string;
  readonly properties: Readonly<Record<string, string>>;
}

export function createApi(config: PageConfig): Api {
  const headers = { 'x-client-id': config.clientId };
  const url = (path: string) => `${config.apiBase}${path}`;
  const answer = answerOf(config);
  return {
    async link(token) {
      let response: Response;
      try {
        response = await fetch(url(tokenPath(token)), {
          headers,
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
      } catch (error) {
        return { kind: 'error', message: unreachable(error) };
      }
      const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
      if (response.ok) return { kind: 'payable', display: body as unknown as Display };
      switch (response.status) {
        case 409:
          return { kind: 'completed', completed: body as unknown as Completed };
        case 404:
          return { kind: 'not_found' };
        case 423: {
          const pending = safePendingOf(body);
          if (!pending) return { kind: 'in_progress' };
          return { kind: 'safe_pending', pending, branding: (body.branding as Branding) ?? null };
        }
        case 403:
          if (body.code === 'secure_payment_expired') return { kind: 'expired' };
          if (body.code === 'secure_payment_invalidated') return { kind: 'invalidated' };
          if (body.code === 'secure_payment_compliance_failed') return { kind: 'blocked' };
          break;
      }
      return {
        kind: 'error',
        message: String(body.message ?? `The service answered ${response.status}`),
      };
    },
    calldata: (token, wallet, eoaWallet) =>
      forWallet(
        answer<Calldata>(
          `${tokenPath(token)}/pay${wallet === undefined ? '' : `?wallet=${encodeURIComponent(wallet)}`}${eoaWallet === undefined ? '' : `&eoaWallet=${encodeURIComponent(eoaWallet)}`}`,
        ),
        wallet,
      ),
    safeCalldata: (token, safe) =>
      forWallet(
        answer<SafeCalldata>(
          `${tokenPath(token)}/pay?isSafe=true&wallet=${encodeURIComponent(safe)}`,
        ),
        safe,
      ),
    recordSafeIntent: (token, intent) =>
      answer(`${tokenPath(token)}/intent`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(intent),
      }),
    async userEvent(token, event) {
      try {
        await fetch(url(`${tokenPath(token)}/events`), {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(event),
          keepalive: true,
        });
      } catch {
        // Telemetry never stands in the payer's way.
      }
    },
  };
}
