import type { WalletChoice } from '../../web/eip6963.ts';
import { call } from './api.ts';
import type { Network } from './config.ts';
import { accountsOf, onChain, said, walletProblem } from './wallet-chain.ts';

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
    const shared = await accountsOf(wallet);
    const wanted = change.walletAddress?.toLowerCase();
    const address =
      wanted === undefined ? shared[0] : shared.find((a) => a.toLowerCase() === wanted);
    if (address === undefined) {
      throw said(
        `${wallet.name} does not hold ${change.walletAddress}: sign with the wallet that does.`,
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
    throw walletProblem(error, wallet, 'sign');
  }
}
