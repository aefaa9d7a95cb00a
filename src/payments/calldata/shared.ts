import { type Address, getAddress, zeroAddress } from 'viem';
import { AppError } from '../../base/errors.ts';
import type { ChainClients } from '../../chains/clients.ts';
import type { Network } from '../../chains/networks.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { EvmTransaction, PaymentLeg, PaymentTransaction } from '../transactions.ts';
import type { EoaApproval, EoaApprovalPermit } from './eoa-approval.ts';

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
  readonly platformFee?: FeeRate;
  readonly protocolFee?: FeeRate;
  /** A smart-account payer's (smart-account.ts): whether its owner EOA must approve first. */
  readonly eoaApprovalRequired?: boolean;
  readonly eoaApproval?: EoaApproval;
  readonly eoaApprovalPermit?: EoaApprovalPermit;
}

/** A fee's rate and recipient, as `/pay`'s metadata names the platform's and ours. */
export interface FeeRate {
  readonly percentage: string;
  readonly address: string;
}

interface FeeBundleEntry {
  readonly requestId: string;
  readonly feeComponentId: string | null;
  readonly feeType: string | null;
  readonly feeLabel: string | null;
  readonly feeBearer: 'payer' | 'payee' | null;
  readonly amount: string;
  readonly paymentCurrencyId: string;
  readonly network: string;
  readonly chainId: string;
  readonly recipient: string;
  readonly paymentReference: string | null;
}

/** The fee legs appended to a payment's transactions (src/fees/bundle.ts builds it). */
export interface FeeBundle {
  readonly bundleId: string | null;
  readonly defaultFeeBearer: 'payer' | 'payee' | null;
  readonly amountSummary: {
    readonly grossAmount: string;
    readonly netRecipientAmount: string;
    readonly totalFees: string;
    readonly payeeBorneFees: string;
    readonly payerBorneFees: string;
    readonly payerTotal: string;
  } | null;
  readonly fees: readonly FeeBundleEntry[];
}

export interface SingleCalldata {
  readonly paymentType: 'single';
  readonly transactions: readonly PaymentTransaction[];
  readonly feeBundle: FeeBundle | null;
  readonly metadata: SingleMetadata;
  /** A smart-account payer's: what its owner EOA sends before `transactions` (an approval). */
  readonly eoaApprovalTransactions?: readonly EvmTransaction[];
}

/**
 * A fee leg paid after the payee's (src/fees/legs.ts): the same token through the same
 * ERC20FeeProxy, to the fee's recipient, under the leg's own payment reference.
 */
export interface FeeLegCall {
  readonly recipient: string;
  /** Base units of the payee leg's currency. */
  readonly amount: bigint;
  /** 16 hex digits. */
  readonly paymentReference: string;
}

/** What a payment and its fee legs take from the payer in all. */
export function withFeeLegs(required: bigint, fees: readonly FeeLegCall[]): bigint {
  return fees.reduce((sum, fee) => sum + fee.amount, required);
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
