import {
  type Address,
  encodeAbiParameters,
  encodePacked,
  type Hex,
  hexToBigInt,
  keccak256,
  zeroAddress,
} from 'viem';
import { PAYMENT_INFO_TYPEHASH } from './abi.ts';

/**
 * The escrow's `PaymentInfo` as the wrapper fills it (contracts.md §5.1): the wrapper is the
 * payment's operator, payer (it deposits the buyer's funds) and receiver; fees are left to the
 * wrapper's own settlement (0 to 10,000 bps, no fee receiver); the salt is the hash of the
 * 8-byte reference, so one reference names one payment.
 */
export interface PaymentInfo {
  readonly operator: Address;
  readonly payer: Address;
  readonly receiver: Address;
  readonly token: Address;
  readonly maxAmount: bigint;
  readonly preApprovalExpiry: number;
  readonly authorizationExpiry: number;
  readonly refundExpiry: number;
  readonly minFeeBps: number;
  readonly maxFeeBps: number;
  readonly feeReceiver: Address;
  readonly salt: bigint;
}

export function wrapperPaymentInfo(input: {
  readonly wrapper: Address;
  readonly token: Address;
  readonly maxAmount: bigint;
  readonly preApprovalExpiry: number;
  readonly authorizationExpiry: number;
  readonly refundExpiry: number;
  /** 8 bytes, `0x` + 16 hex digits. */
  readonly paymentReference: Hex;
}): PaymentInfo {
  return {
    operator: input.wrapper,
    payer: input.wrapper,
    receiver: input.wrapper,
    token: input.token,
    maxAmount: input.maxAmount,
    preApprovalExpiry: input.preApprovalExpiry,
    authorizationExpiry: input.authorizationExpiry,
    refundExpiry: input.refundExpiry,
    minFeeBps: 0,
    maxFeeBps: 10_000,
    feeReceiver: zeroAddress,
    salt: hexToBigInt(keccak256(encodePacked(['bytes8'], [input.paymentReference]))),
  };
}

const PAYMENT_INFO_COMPONENTS = [
  { name: 'operator', type: 'address' },
  { name: 'payer', type: 'address' },
  { name: 'receiver', type: 'address' },
  { name: 'token', type: 'address' },
  { name: 'maxAmount', type: 'uint120' },
  { name: 'preApprovalExpiry', type: 'uint48' },
  { name: 'authorizationExpiry', type: 'uint48' },
  { name: 'refundExpiry', type: 'uint48' },
  { name: 'minFeeBps', type: 'uint16' },
  { name: 'maxFeeBps', type: 'uint16' },
  { name: 'feeReceiver', type: 'address' },
  { name: 'salt', type: 'uint256' },
] as const;

/**
 * The escrow's `getHash(info)`: `keccak256(abi.encode(chainId, escrow, keccak256(abi.encode(
 * PAYMENT_INFO_TYPEHASH, info))))`, the payment's id in the escrow's events (the wrapper's
 * `commercePaymentHash`).
 */
export function commercePaymentHash(chainId: number, escrow: Address, info: PaymentInfo): Hex {
  const inner = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'tuple', components: PAYMENT_INFO_COMPONENTS }],
      [PAYMENT_INFO_TYPEHASH, info],
    ),
  );
  return keccak256(
    encodeAbiParameters(
      [{ type: 'uint256' }, { type: 'address' }, { type: 'bytes32' }],
      [BigInt(chainId), escrow, inner],
    ),
  );
}
