import type { WalletChoice } from '../../web/eip6963.ts';
import { ApiError } from './api.ts';
import type { Network } from './config.ts';

/**
 * What the dashboard asks of a merchant's browser wallet beside signing in: to be on a
 * network's chain, and the words for its refusals. Plain EIP-1193 calls.
 */

/** EIP-1193's "the user rejected the request"; EIP-3326's "the wallet does not know the chain". */
const USER_REJECTED = 4001;
const UNKNOWN_CHAIN = 4902;

/** A problem already in the merchant's words (passes through `walletProblem`). */
export function said(message: string): ApiError {
  return new ApiError(0, message, undefined);
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** Words a wallet's error starts with; not the request arguments and calldata some append. */
const MAX_WALLET_WORDS = 200;

function firstWords(message: string): string {
  const line = (message.split('\n')[0] ?? '').trim().replace(/[.:]+$/, '');
  return line.length > MAX_WALLET_WORDS ? `${line.slice(0, MAX_WALLET_WORDS)}…` : line;
}

/** A wallet's refusal or failure, in words for the merchant. */
export function walletProblem(error: unknown, wallet: WalletChoice, doing: string): Error {
  if (error instanceof ApiError) return error;
  if (codeOf(error) === USER_REJECTED) {
    return new Error('You declined in your wallet, so nothing changed there.');
  }
  const message = (error as { message?: unknown } | null)?.message;
  return new Error(
    `${wallet.name} could not ${doing}${typeof message === 'string' ? `: ${firstWords(message)}` : ''}.`,
  );
}

/** The wallet's accounts, the first being the one it uses; refuses when it shares none. */
export async function accountsOf(wallet: WalletChoice): Promise<string[]> {
  const accounts = await wallet.provider.request({ method: 'eth_requestAccounts' });
  const shared = Array.isArray(accounts)
    ? accounts.filter((a): a is string => typeof a === 'string')
    : [];
  if (shared.length === 0)
    throw said(`${wallet.name} shared no account. Unlock it, then try again.`);
  return shared;
}

/** Moves the wallet to `network`'s chain unless it is on it already. */
export async function onChain(wallet: WalletChoice, network: Network): Promise<void> {
  const current = await wallet.provider.request({ method: 'eth_chainId' });
  if (typeof current === 'string' && Number.parseInt(current, 16) === network.chainId) return;
  try {
    await wallet.provider.request({
      method: 'wallet_switchEthereumChain',
      params: [{ chainId: `0x${network.chainId.toString(16)}` }],
    });
  } catch (error) {
    if (codeOf(error) === UNKNOWN_CHAIN) {
      throw said(`Add ${network.name} to ${wallet.name}, then try again.`);
    }
    throw error;
  }
}
