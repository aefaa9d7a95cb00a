import { findTronLink, requestTronAccount, type TronLink } from '../../web/tron-link.ts';
import { ApiError } from './api.ts';
import type { DashboardConfig } from './config.ts';
import { type Session, signedInSession, walletAuth } from './session.ts';
import { WALLET_DECLINED } from './wallet-sign-in.ts';

/**
 * Signing in with TronLink: it shares its account (`tron_requestAccounts`), the auth API
 * writes the sign-in message for that base58 address, TronLink signs it (`signMessageV2`:
 * nothing sent, nothing spent), and the auth API sets the session cookie for the wallet's
 * account. Only the part of TronLink's objects the sign-in uses is declared here.
 */

interface TronWebLike {
  readonly defaultAddress: { readonly base58: string | false };
  readonly trx: { signMessageV2(message: string): Promise<string> };
}

export type TronLinkWallet = TronLink<TronWebLike>;

/** TronLink as the extension injects it, or null in a browser without it. */
export function findTronLinkWallet(): TronLinkWallet | null {
  return findTronLink<TronWebLike>();
}

/** TronLink rejects with bare strings ("Confirmation declined by user"). */
function isDeclined(error: unknown): boolean {
  const text = typeof error === 'string' ? error : (error as { message?: unknown })?.message;
  return typeof text === 'string' && /declined|rejected/i.test(text);
}

export async function signInWithTronLink(
  config: DashboardConfig,
  wallet: TronLinkWallet,
  onSigning: () => void,
): Promise<Session> {
  try {
    const shared = await requestTronAccount(wallet);
    if (!('address' in shared)) {
      throw new Error(
        shared.refused
          ? WALLET_DECLINED
          : 'TronLink shared no account. Unlock it, allow this site, then try again.',
      );
    }
    const { tronWeb, address } = shared;
    const auth = walletAuth(config);
    const challenge = await auth.challenge(address, undefined);
    onSigning();
    await auth.verify(challenge, await tronWeb.trx.signMessageV2(challenge.message));
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (isDeclined(error)) throw new Error(WALLET_DECLINED);
    if (error instanceof Error) throw error;
    throw new Error(`TronLink could not sign in: ${String(error)}. Try again.`);
  }
  return signedInSession(config);
}
