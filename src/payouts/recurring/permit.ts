import type { Address } from 'viem';

/**
 * The payer's signed schedule (contracts.md §4): EIP-712 typed data for the deployed
 * ERC20RecurringPaymentProxy's `SchedulePermit`, in the contract's field order. A wallet signs
 * `{domain, types, values}` with `eth_signTypedData_v4` (primaryType `SchedulePermit`).
 */
export const SCHEDULE_PERMIT_TYPES = {
  SchedulePermit: [
    { name: 'subscriber', type: 'address' },
    { name: 'token', type: 'address' },
    { name: 'recipient', type: 'address' },
    { name: 'feeAddress', type: 'address' },
    { name: 'amount', type: 'uint128' },
    { name: 'feeAmount', type: 'uint128' },
    { name: 'relayerFee', type: 'uint128' },
    { name: 'periodSeconds', type: 'uint32' },
    { name: 'firstPayment', type: 'uint32' },
    { name: 'totalPayments', type: 'uint8' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'strictOrder', type: 'bool' },
  ],
} as const;

/** keccak256 of the type string above; the contract's `SCHEDULE_PERMIT_TYPEHASH`. */
export const SCHEDULE_PERMIT_TYPEHASH =
  '0x3e691a1c66178d267f01c56f85dc2647a09aabeafc8f5c5d40d6021b0b2a6d03';

export interface SchedulePermitValues {
  readonly subscriber: Address;
  readonly token: Address;
  readonly recipient: Address;
  readonly feeAddress: Address;
  readonly amount: bigint;
  readonly feeAmount: bigint;
  readonly relayerFee: bigint;
  readonly periodSeconds: number;
  readonly firstPayment: number;
  readonly totalPayments: number;
  readonly nonce: bigint;
  readonly deadline: bigint;
  readonly strictOrder: boolean;
}

export interface SchedulePermitDomain {
  readonly name: 'ERC20RecurringPaymentProxy';
  readonly version: '1';
  readonly chainId: number;
  readonly verifyingContract: Address;
}

export interface SchedulePermitTypedData {
  readonly domain: SchedulePermitDomain;
  readonly types: typeof SCHEDULE_PERMIT_TYPES;
  readonly primaryType: 'SchedulePermit';
  readonly message: SchedulePermitValues;
}

/** The typed data a wallet signs, for viem (`hashTypedData`, `verifyTypedData`, `signTypedData`). */
export function schedulePermitTypedData(
  chainId: number,
  proxy: Address,
  values: SchedulePermitValues,
): SchedulePermitTypedData {
  return {
    domain: { name: 'ERC20RecurringPaymentProxy', version: '1', chainId, verifyingContract: proxy },
    types: SCHEDULE_PERMIT_TYPES,
    primaryType: 'SchedulePermit',
    message: values,
  };
}

/**
 * The permit as the reference's create response carries it (`recurringPaymentPermit`):
 * `{domain, types, values}`, numbers past 2^53 as decimal strings so JSON keeps them exact.
 */
export function schedulePermitBody(typedData: SchedulePermitTypedData): {
  domain: SchedulePermitDomain;
  types: typeof SCHEDULE_PERMIT_TYPES;
  values: Record<keyof SchedulePermitValues, string | number | boolean>;
} {
  const m = typedData.message;
  return {
    domain: typedData.domain,
    types: typedData.types,
    values: {
      subscriber: m.subscriber,
      token: m.token,
      recipient: m.recipient,
      feeAddress: m.feeAddress,
      amount: m.amount.toString(),
      feeAmount: m.feeAmount.toString(),
      relayerFee: m.relayerFee.toString(),
      periodSeconds: m.periodSeconds,
      firstPayment: m.firstPayment,
      totalPayments: m.totalPayments,
      nonce: m.nonce.toString(),
      deadline: m.deadline.toString(),
      strictOrder: m.strictOrder,
    },
  };
}
