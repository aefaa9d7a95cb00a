import { type Address, getAddress, type Hex, hashTypedData } from 'viem';

/**
 * A Safe transaction as its owners sign it: EIP-712 `SafeTx` under the Safe's own domain
 * (`chainId` and `verifyingContract`, Safe 1.3.0 and later), typehash
 * 0xbb8310d4…286d8 (contracts.md §10.2). Its hash is the `safeTxHash` each owner signs and
 * `execTransaction` checks the signatures against.
 */
export interface SafeTx {
  readonly to: Address;
  readonly value: bigint;
  readonly data: Hex;
  /** 0 call, 1 delegatecall. */
  readonly operation: 0 | 1;
  readonly safeTxGas: bigint;
  readonly baseGas: bigint;
  readonly gasPrice: bigint;
  readonly gasToken: Address;
  readonly refundReceiver: Address;
  readonly nonce: bigint;
}

export const SAFE_TX_TYPES = {
  SafeTx: [
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
    { name: 'operation', type: 'uint8' },
    { name: 'safeTxGas', type: 'uint256' },
    { name: 'baseGas', type: 'uint256' },
    { name: 'gasPrice', type: 'uint256' },
    { name: 'gasToken', type: 'address' },
    { name: 'refundReceiver', type: 'address' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const;

/** What `eth_signTypedData_v4` takes to sign a Safe transaction as one of its owners. */
export function safeTxTypedData(chainId: number, safe: string, tx: SafeTx) {
  return {
    domain: { chainId, verifyingContract: getAddress(safe) },
    types: SAFE_TX_TYPES,
    primaryType: 'SafeTx' as const,
    message: tx,
  };
}

export function safeTxHash(chainId: number, safe: string, tx: SafeTx): Hex {
  return hashTypedData(safeTxTypedData(chainId, safe, tx));
}
