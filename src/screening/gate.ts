import { AppError, ValidationError } from '../base/errors.ts';
import { addressKey, parseAddress } from '../chains/address.ts';
import type { LinkScreening } from '../db/schema.ts';
import { type EventLink, reportAccessRejected, reportScreening } from './events.ts';
import { type ScreenDeps, screenWallet } from './screen.ts';

/**
 * The check a link's payer passes before it gets calldata (`GET /{token}/pay`, `POST
 * /{token}/calldata`): a wallet off the link's allowlist is refused (and reported,
 * `secure_payment.access_rejected`); under `kyt_all_wallets` the wallet (and the owner of a
 * smart account) is screened, and a rejected one refused. When no provider answers, the
 * policy decides: refused unless the service is set to fail open.
 */

export const PAYER_NOT_ALLOWED_MESSAGE =
  'This wallet is not allowed to pay this link: the merchant accepts payment only from listed wallets';
export const PAYER_SCREENING_REJECTED_MESSAGE =
  'This wallet did not pass the compliance screening this link requires and cannot pay it';
export const PAYER_SCREENING_UNAVAILABLE_MESSAGE =
  'Compliance screening is unavailable right now, so this link cannot be paid yet; retry in a few minutes';
const WALLET_REQUIRED_MESSAGE =
  'is required: this link checks the wallet that pays it (send the payer wallet)';

export interface GateDeps extends ScreenDeps {
  readonly wakeDispatcher?: (() => void) | undefined;
}

export interface GatedLink extends EventLink {
  readonly network: string;
  readonly screening: LinkScreening | null;
}

/** The wallet in compared form: EVM lower-cased, Tron as written. */
export function walletKey(wallet: string): string {
  const parsed = parseAddress(wallet, { allowZero: true });
  return parsed.ok ? addressKey(parsed) : wallet;
}

export async function checkLinkPayer(
  deps: GateDeps,
  link: GatedLink,
  payer: { readonly wallet?: string | undefined; readonly eoaWallet?: string | undefined },
): Promise<void> {
  const rules = link.screening;
  if (rules === null) return;
  if (payer.wallet === undefined) {
    throw new ValidationError([{ field: 'wallet', message: WALLET_REQUIRED_MESSAGE }]);
  }
  const wallet = walletKey(payer.wallet);
  const owner = payer.eoaWallet === undefined ? null : walletKey(payer.eoaWallet);
  const now = deps.clock.now();
  if (rules.allowedPayerAddresses.length > 0) {
    const allowed = new Set(rules.allowedPayerAddresses);
    // The paying address (`wallet`, what sends on chain) must be listed: an `eoaWallet` is
    // only what the caller says owns it, so a listed one does not admit an unlisted wallet.
    if (!allowed.has(wallet)) {
      if (await reportAccessRejected(deps.db, now, link, wallet)) deps.wakeDispatcher?.();
      throw new AppError('payer_not_allowed', PAYER_NOT_ALLOWED_MESSAGE);
    }
  }
  if (rules.mode !== 'kyt_all_wallets') return;
  const screened = owner !== null && owner !== wallet ? [wallet, owner] : [wallet];
  for (const address of screened) {
    const outcome = await screenWallet(deps, {
      wallet: address,
      network: link.network,
      providers: rules.providers,
      securePaymentId: link.id,
      stage: 'access',
    });
    if (outcome.status === 'unavailable') {
      if (deps.screening.failOpen) continue;
      throw new AppError('payer_screening_unavailable', PAYER_SCREENING_UNAVAILABLE_MESSAGE);
    }
    if (outcome.fresh) {
      const sent = await reportScreening(deps.db, deps.clock.now(), link, {
        walletAddress: address,
        eoaAddress: owner ?? wallet,
        smartAccountAddress: owner !== null && owner !== wallet ? wallet : null,
        status: outcome.status,
        provider: outcome.provider,
        policyId: outcome.policyId,
      });
      if (sent) deps.wakeDispatcher?.();
    }
    if (outcome.status === 'rejected') {
      throw new AppError('payer_screening_rejected', PAYER_SCREENING_REJECTED_MESSAGE);
    }
  }
}
