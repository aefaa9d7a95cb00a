import type { WalletChoice } from '../../web/eip6963.ts';
import { signInWithWallet as signInWithSiwe } from '../../web/siwe.ts';
import { ApiError } from './api.ts';
import type { DashboardConfig } from './config.ts';
import { type Session, signedInSession, walletAuth } from './session.ts';

/**
 * Signing in with a browser wallet (Sign-In with Ethereum, EIP-4361): the wallet shares its
 * account, the auth API writes the message for it, the wallet signs it with `personal_sign`
 * (nothing sent, nothing spent), and the auth API sets the session cookie for the wallet's
 * account (made on its first sign-in). Plain EIP-1193 requests.
 */

/** EIP-1193's "the user rejected the request". */
const USER_REJECTED = 4001;

export const WALLET_DECLINED =
  'You declined to sign in, so nothing changed. You can try again, with this wallet or another.';

/** A wallet's refusal, or a problem in its hands, in words for the merchant. */
function walletProblem(error: unknown): Error {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === USER_REJECTED) return new Error(WALLET_DECLINED);
  const message = (error as { message?: unknown } | null)?.message;
  return new Error(
    `Your wallet could not sign in${typeof message === 'string' ? `: ${message}` : ''}. Try again.`,
  );
}

export async function signInWithWallet(
  config: DashboardConfig,
  wallet: WalletChoice,
  /** Called once the message is written, as the wallet is asked to sign it. */
  onSigning: () => void,
): Promise<Session> {
  try {
    await signInWithSiwe({
      wallet,
      ...walletAuth(config),
      onSigning,
      problem: (message) => new ApiError(0, message, undefined),
    });
  } catch (error) {
    throw walletProblem(error);
  }
  return signedInSession(config);
}
