import type { WalletChoice } from './eip6963.ts';

/**
 * A wallet sign-in (Sign-In with Ethereum, EIP-4361) as an EIP-1193 wallet takes part in it:
 * it shares its account, the auth API writes the message (`challenge`), the wallet signs it
 * with `personal_sign` (EIP-191: nothing sent, nothing spent), and the auth API checks the
 * signature (`verify`). Shared by the pay page's link-intent page and the dashboard; each
 * says the wallet's problems in its own words (`problem`).
 */

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

export interface WalletSignIn<Challenge extends { readonly message: string }, Verified> {
  readonly wallet: WalletChoice;
  challenge(address: string, chainId: number | undefined): Promise<Challenge>;
  verify(challenge: Challenge, signature: string): Promise<Verified>;
  /** Called once the message is written, as the wallet is asked to sign it. */
  onSigning(): void;
  /** The error to throw for a wallet that shared no account or gave no signature. */
  problem(message: string): Error;
}

export async function signInWithWallet<Challenge extends { readonly message: string }, Verified>(
  steps: WalletSignIn<Challenge, Verified>,
): Promise<{ address: string; chainId: number | undefined; verified: Verified }> {
  const { wallet } = steps;
  const accounts = await wallet.provider.request({ method: 'eth_requestAccounts' });
  const address = Array.isArray(accounts) ? accounts[0] : undefined;
  if (typeof address !== 'string') {
    throw steps.problem('Your wallet shared no account. Unlock it, then try again.');
  }
  const chainId = await chainIdOf(wallet);
  const challenge = await steps.challenge(address, chainId);
  steps.onSigning();
  const signature = await wallet.provider.request({
    method: 'personal_sign',
    params: [utf8Hex(challenge.message), address],
  });
  if (typeof signature !== 'string')
    throw steps.problem('Your wallet gave no signature. Try again.');
  return { address, chainId, verified: await steps.verify(challenge, signature) };
}
