import type { Address } from 'viem';
import type { PERMIT_TYPES, PermitDomain } from '../permit-support.ts';

/**
 * What a smart account's owner EOA grants it before a payment (the reference's `eoaApproval`):
 * `spender` may take `owner`'s `tokenAddress`. `amount` is what this payment takes, in the
 * token's units; the approval itself is `unlimited` (2^256 - 1), the reference's one kind, so a
 * later payment through the same account needs none.
 */
export interface EoaApproval {
  readonly owner: Address;
  readonly spender: Address;
  readonly tokenAddress: Address;
  /** The currency id, as `paymentCurrencyId` elsewhere (`USDC-base`). */
  readonly currency: string;
  readonly amount: string;
  readonly approvalType: 'unlimited';
}

/**
 * Ours: the same approval as an EIP-2612 permit, for a token that takes them, as EIP-712
 * typed data for the EOA to sign (`eth_signTypedData_v4`); numbers are decimal strings.
 */
export interface EoaApprovalPermit {
  readonly domain: PermitDomain;
  readonly types: typeof PERMIT_TYPES;
  readonly primaryType: 'Permit';
  readonly message: {
    readonly owner: Address;
    readonly spender: Address;
    readonly value: string;
    readonly nonce: string;
    readonly deadline: string;
  };
}
