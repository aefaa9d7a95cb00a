import { getAddress, type Hex, recoverTypedDataAddress } from 'viem';
import { TRON_CHAIN_ID } from '../chains/networks.ts';
import { evmToTron } from '../chains/tron-address.ts';

/**
 * The EIP-712 message a wallet signs to add or deactivate its payee destination. Addresses are
 * `string` fields so EVM and Tron wallets sign the same structure (Tron wallets through TIP-712,
 * which hashes like EIP-712); the nonce makes each signature single-use.
 */

export type DestinationAction = 'add' | 'deactivate';

const DESTINATION_TYPES = {
  PayeeDestination: [
    { name: 'action', type: 'string' },
    { name: 'walletAddress', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'tokenAddress', type: 'string' },
    { name: 'nonce', type: 'string' },
    { name: 'expiresAt', type: 'uint256' },
  ],
} as const;

export interface DestinationMessage {
  readonly action: DestinationAction;
  readonly walletAddress: string;
  readonly chainId: number;
  readonly tokenAddress: string;
  readonly nonce: string;
  /** Unix seconds. */
  readonly expiresAt: number;
}

function destinationTypedData(message: DestinationMessage) {
  return {
    domain: { name: 'payreq payee destinations', version: '1', chainId: message.chainId },
    types: DESTINATION_TYPES,
    primaryType: 'PayeeDestination' as const,
    message: {
      action: message.action,
      walletAddress: message.walletAddress,
      chainId: BigInt(message.chainId),
      tokenAddress: message.tokenAddress,
      nonce: message.nonce,
      expiresAt: BigInt(message.expiresAt),
    },
  };
}

/** The same typed data with numbers as JSON can carry them, for the signing-data response. */
export function destinationTypedDataJson(message: DestinationMessage) {
  const typed = destinationTypedData(message);
  return {
    domain: typed.domain,
    types: { PayeeDestination: DESTINATION_TYPES.PayeeDestination.map((field) => ({ ...field })) },
    primaryType: typed.primaryType,
    message: { ...message },
  };
}

/** Did the wallet of the message sign it? (EOA signatures; EVM or Tron.) */
export async function signedByWallet(
  message: DestinationMessage,
  signature: Hex,
): Promise<boolean> {
  let signer: string;
  try {
    signer = await recoverTypedDataAddress({ ...destinationTypedData(message), signature });
  } catch {
    return false;
  }
  if (message.chainId === TRON_CHAIN_ID) return evmToTron(signer) === message.walletAddress;
  return getAddress(signer) === getAddress(message.walletAddress);
}
