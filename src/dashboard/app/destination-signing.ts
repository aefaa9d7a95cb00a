import type { WalletChoice } from '../../web/eip6963.ts';
import { ApiError, call } from './api.ts';
import type { Network } from './config.ts';

/**
 * A destination's wallet signs each change to it (EIP-712 typed data with a single-use nonce,
 * `GET /v2/payee-destination/signing-data`), so no one holding the session alone can send the
 * account's payments elsewhere. Plain EIP-1193 calls: the wallet shares its account, moves to
 * the destination's chain (wallets sign typed data only for the chain they are on), and signs.
 */

export type DestinationAction = 'add' | 'deactivate';

interface SigningData {
  readonly nonce: string;
  readonly typedData: {
    readonly domain: Record<string, unknown>;
    readonly types: Record<string, readonly { name: string; type: string }[]>;
    readonly primaryType: string;
    readonly message: Record<string, unknown>;
  };
}

/** EIP-1193's "the user rejected the request"; EIP-3326's "the wallet does not know the chain". */
const USER_REJECTED = 4001;
const UNKNOWN_CHAIN = 4902;

/** The order EIP-712 gives the domain's fields, with their types. */
const DOMAIN_FIELDS = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
  { name: 'salt', type: 'bytes32' },
] as const;

/**
 * The typed data as `eth_signTypedData_v4` takes it: with `EIP712Domain` spelled out for the
 * domain's fields (a wallet that is not told them hashes an empty domain, and the signature
 * then matches nothing).
 */
function typedDataForWallet(typedData: SigningData['typedData']): string {
  const domain = DOMAIN_FIELDS.filter((field) => typedData.domain[field.name] !== undefined);
  return JSON.stringify({ ...typedData, types: { EIP712Domain: domain, ...typedData.types } });
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** A problem already in the merchant's words (an ApiError passes through walletProblem). */
function said(message: string): ApiError {
  return new ApiError(0, message, undefined);
}

/** A wallet's refusal or failure, in words for the merchant. */
function walletProblem(error: unknown, wallet: WalletChoice): Error {
  if (error instanceof ApiError) return error;
  if (codeOf(error) === USER_REJECTED) {
    return new Error('You declined in your wallet, so nothing changed.');
  }
  const message = (error as { message?: unknown } | null)?.message;
  return new Error(
    `${wallet.name} could not sign${typeof message === 'string' ? `: ${message}` : ''}.`,
  );
}

/** Moves the wallet to `network`'s chain unless it is on it already. */
async function onChain(wallet: WalletChoice, network: Network): Promise<void> {
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

/**
 * Has the wallet sign `action` on its destination for `tokenAddress` on `network`; `walletAddress`
 * names the wallet that must sign (a destination being removed), else the wallet's first account.
 * Returns the body `POST` and `DELETE /v2/payee-destination` take.
 */
export async function signDestination(
  apiBase: string,
  wallet: WalletChoice,
  change: {
    readonly action: DestinationAction;
    readonly network: Network;
    readonly tokenAddress: string;
    readonly walletAddress?: string;
  },
): Promise<{ readonly signature: string; readonly nonce: string }> {
  try {
    const accounts = await wallet.provider.request({ method: 'eth_requestAccounts' });
    const shared = Array.isArray(accounts)
      ? accounts.filter((a): a is string => typeof a === 'string')
      : [];
    const wanted = change.walletAddress?.toLowerCase();
    const address =
      wanted === undefined ? shared[0] : shared.find((a) => a.toLowerCase() === wanted);
    if (address === undefined) {
      throw said(
        change.walletAddress === undefined
          ? `${wallet.name} shared no account. Unlock it, then try again.`
          : `${wallet.name} does not hold ${change.walletAddress}: sign with the wallet that does.`,
      );
    }
    await onChain(wallet, change.network);
    const query = new URLSearchParams({
      walletAddress: address,
      action: change.action,
      tokenAddress: change.tokenAddress,
      chainId: String(change.network.chainId),
    });
    const data = await call<SigningData>(apiBase, `/v2/payee-destination/signing-data?${query}`);
    const signature = await wallet.provider.request({
      method: 'eth_signTypedData_v4',
      params: [address, typedDataForWallet(data.typedData)],
    });
    if (typeof signature !== 'string') throw said(`${wallet.name} gave no signature.`);
    return { signature, nonce: data.nonce };
  } catch (error) {
    throw walletProblem(error, wallet);
  }
}
