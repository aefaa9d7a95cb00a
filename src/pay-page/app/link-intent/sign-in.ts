import { ApiError } from '../answer.ts';
import type { WalletChoice } from '../wallet/eip6963.ts';
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

/** The message as `personal_sign` takes it: its UTF-8 bytes in hex. */
function utf8Hex(text: string): string {
  let hex = '0x';
  for (const byte of new TextEncoder().encode(text)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** The wallet's chain, so the message names it and the wallet shows no mismatch; else none. */
async function chainIdOf(wallet: WalletChoice): Promise<number | undefined> {
  try {
    const hex = await wallet.provider.request({ method: 'eth_chainId' });
    const id = typeof hex === 'string' ? Number.parseInt(hex, 16) : Number.NaN;
    return Number.isSafeInteger(id) && id > 0 ? id : undefined;
  } catch {
    return undefined;
  }
}

export async function signIn(
  api: IntentApi,
  wallet: WalletChoice,
  onSigning: () => void,
): Promise<SignedIn> {
  try {
    const accounts = await wallet.provider.request({ method: 'eth_requestAccounts' });
    const address = Array.isArray(accounts) ? accounts[0] : undefined;
    if (typeof address !== 'string') {
      throw new Problem('Your wallet shared no account. Unlock it, then try again.');
    }
    const chainId = await chainIdOf(wallet);
    const challenge = await api.challenge(address, chainId);
    onSigning();
    const signature = await wallet.provider.request({
      method: 'personal_sign',
      params: [utf8Hex(challenge.message), address],
    });
    if (typeof signature !== 'string') {
      throw new Problem('Your wallet gave no signature. Try again.');
    }
    return { address, session: await api.verify(challenge, signature), chainId };
  } catch (error) {
    // A refusal in the wallet is said for what it is here: a sign-in, not a payment.
    const fromWallet = !(error instanceof Problem) && !(error instanceof ApiError);
    if (fromWallet && explain(error, SIGN_IN_WORDS) === REJECTED) {
      throw new Problem(SIGN_IN_DECLINED);
    }
    throw error;
  }
}
