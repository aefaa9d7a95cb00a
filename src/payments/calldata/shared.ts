import { type Address, getAddress, zeroAddress } from 'viem';
import { AppError } from '../../base/errors.ts';
import type { ChainClients } from '../../chains/clients.ts';
import type { Network } from '../../chains/networks.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { PaymentLeg, PaymentTransaction } from '../transactions.ts';

/** Tokens that refuse to change a non-zero allowance to another non-zero value (mainnet USDT). */
export const RESETS_ALLOWANCE: ReadonlySet<string> = new Set(['USDT-mainnet']);

/** What every calldata builder needs: the contract facts and a way to read the payer's state. */
export interface CalldataDeps {
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
}

export interface SingleMetadata {
  readonly stepsRequired: number;
  readonly needsApproval: boolean;
  readonly approvalTransactionIndex?: number;
  readonly approvalTransactionsCount?: number;
  readonly paymentTransactionIndex: number;
  readonly transactionSponsorshipFeeUsd: null;
  readonly routeType: 'samechain';
  readonly requiredAmount: string;
  readonly hasEnoughBalance?: boolean;
  readonly hasEnoughGas?: boolean;
  readonly hasEnoughAllowance?: boolean;
  readonly balance?: string;
  readonly allowance?: string;
  readonly nativeBalance?: string;
  readonly estimatedNetworkFee?: string;
  readonly estimatedApprovalNetworkFee?: string;
  readonly estimatedPaymentNetworkFee?: string;
}

export interface SingleCalldata {
  readonly paymentType: 'single';
  readonly transactions: readonly PaymentTransaction[];
  readonly feeBundle: null;
  readonly metadata: SingleMetadata;
}

/** The payer-specific facts a builder adds to the metadata `single` derives from the steps. */
export type SingleDetails = Omit<
  SingleMetadata,
  | 'stepsRequired'
  | 'needsApproval'
  | 'paymentTransactionIndex'
  | 'routeType'
  | 'transactionSponsorshipFeeUsd'
>;

/** A single-request answer: the approvals come first, the payment after them. */
export function single(
  transactions: readonly PaymentTransaction[],
  approvals: number,
  details: SingleDetails,
): SingleCalldata {
  return {
    paymentType: 'single',
    transactions,
    feeBundle: null,
    metadata: {
      stepsRequired: transactions.length,
      needsApproval: approvals > 0,
      ...(approvals > 0 && { approvalTransactionIndex: 0, approvalTransactionsCount: approvals }),
      paymentTransactionIndex: approvals,
      transactionSponsorshipFeeUsd: null,
      routeType: 'samechain',
      ...details,
    },
  };
}

/** The fee proxy that pays `leg`, or a 400 when its network has none deployed. */
export function feeProxyOf(
  deps: CalldataDeps,
  leg: PaymentLeg,
  key: 'erc20FeeProxy' | 'ethFeeProxy',
): string {
  const address = deps.chains.contracts(leg.network.id)[key];
  if (!address) {
    throw new AppError(
      'network_not_supported',
      `Payments in ${leg.currency.id} are not supported on ${leg.network.id}`,
    );
  }
  return address;
}

/** `_feeAmount, _feeAddress` of a fee-proxy call: the zero address when the leg names none. */
export function feeArgs(leg: PaymentLeg): [bigint, Address] {
  return [leg.feeAmount, leg.feeAddress ? getAddress(leg.feeAddress) : zeroAddress];
}

export function multicallOf(deps: CalldataDeps, network: Network): Address {
  const address = deps.chains.contracts(network.id).multicall3;
  if (!address) throw new AppError('chain_unavailable', `Network ${network.id} has no Multicall3`);
  return getAddress(address);
}
