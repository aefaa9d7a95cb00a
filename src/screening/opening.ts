import type { Clock } from '../base/clock.ts';
import type { Database } from '../db/client.ts';
import { reportAccessRejected } from './events.ts';
import { type GatedLink, walletKey } from './gate.ts';

/**
 * Opening a link (`GET /v2/secure-payments/{token}`) with a `wallet` off its allowlist: the
 * link is still shown (the page needs it to say why), with the reference's `accessDecision`
 * (`rejected`, `wallet_not_allowed`), and the merchant hears `secure_payment.access_rejected`
 * (api-facts §1.2 row 14: a wallet tried to open or pay it), under the same once-per-window
 * claim as a refused `/pay`. No provider is asked on opening: KYT screens before calldata.
 */

const WALLET_NOT_ALLOWED = 'wallet_not_allowed';

export interface AccessDecision {
  readonly status: 'rejected';
  readonly reasonCode: string;
  readonly provider: null;
  readonly walletResults: readonly {
    readonly walletAddress: string;
    readonly walletType: 'eoa' | 'smart_account';
    readonly parentWalletAddress: string | null;
    readonly status: 'rejected';
    readonly reasonCode: string;
    readonly provider: null;
    readonly evaluatedAt: string;
  }[];
}

export async function openingDecision(
  deps: {
    readonly db: Database;
    readonly clock: Clock;
    readonly wakeDispatcher?: (() => void) | undefined;
  },
  link: GatedLink,
  payer: { readonly wallet?: string | undefined; readonly eoaWallet?: string | undefined },
): Promise<AccessDecision | null> {
  const listed = link.screening?.allowedPayerAddresses ?? [];
  if (payer.wallet === undefined || listed.length === 0) return null;
  const wallet = walletKey(payer.wallet);
  if (listed.includes(wallet)) return null;
  const now = deps.clock.now();
  if (await reportAccessRejected(deps.db, now, link, wallet)) deps.wakeDispatcher?.();
  const owner = payer.eoaWallet === undefined ? null : walletKey(payer.eoaWallet);
  return {
    status: 'rejected',
    reasonCode: WALLET_NOT_ALLOWED,
    provider: null,
    walletResults: [
      {
        walletAddress: wallet,
        walletType: owner !== null && owner !== wallet ? 'smart_account' : 'eoa',
        parentWalletAddress: owner !== null && owner !== wallet ? owner : null,
        status: 'rejected',
        reasonCode: WALLET_NOT_ALLOWED,
        provider: null,
        evaluatedAt: now.toISOString(),
      },
    ],
  };
}
