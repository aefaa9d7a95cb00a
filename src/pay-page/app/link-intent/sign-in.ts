import type { WalletChoice } from '../../../web/eip6963.ts';
import { signInWithWallet } from '../../../web/siwe.ts';
import { ApiError } from '../answer.ts';
import { explain, Problem, REJECTED } from '../wallet/problems.ts';
import type { IntentApi } from './api.ts';

/**
 * Wallet sign-in (Sign-In with Ethereum) from the page: the wallet shares its account, the
 * auth API writes the message, the wallet signs it with `personal_sign` (EIP-191: it sends
 * nothing and costs nothing), and the auth API answers a session for that wallet's account.
 * Plain EIP-1193 requests: no library needed for three calls.
 */

export interface SignedIn {
  readonly address: string;
  readonly session: string;
  /** The chain the wallet was on, when it said. */
  readonly chainId: number | undefined;
}

/** Sign-in is on no payment network: these words fill messages about funds, which never apply. */
export const SIGN_IN_WORDS = { network: 'your network', native: 'the native currency' };

const SIGN_IN_DECLINED =
  'You declined to sign in, so nothing changed. You can try again, with this wallet or another.';

export async function signIn(
  api: IntentApi,
  wallet: WalletChoice,
  onSigning: () => void,
): Promise<SignedIn> {
  try {
    const { address, chainId, verified } = await signInWithWallet({
      wallet,
      challenge: (address, chainId) => api.challenge(address, chainId),
      verify: (challenge, signature) => api.verify(challenge, signature),
      onSigning,
      problem: (message) => new Problem(message),
    });
    return { address, session: verified, chainId };
  } catch (error) {
    // A refusal in the wallet is said for what it is here: a sign-in, not a payment.
    const fromWallet = !(error instanceof Problem) && !(error instanceof ApiError);
    if (fromWallet && explain(error, SIGN_IN_WORDS) === REJECTED) {
      throw new Problem(SIGN_IN_DECLINED);
    }
    throw error;
  }
}
