import { type Address, getAddress, zeroAddress } from 'viem';
import type { ChainClients } from '../chains/clients.ts';
import { isNative } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { evmToTron } from '../chains/tron-address.ts';
import { AppError } from '../errors.ts';
import { erc20Abi, erc20FeeProxyAbi, ethFeeProxyAbi, TRON_SELECTORS } from './abis.ts';
import { formatAmount } from './amounts.ts';
import { networkFee } from './gas.ts';
import type { Payer } from './payer.ts';
import { readPayerState } from './payer-state.ts';
import { referenceBytes } from './references.ts';
import {
  type EvmTransaction,
  evmForm,
  evmTransaction,
  type PaymentLeg,
  type PaymentTransaction,
  type TronTransaction,
} from './transactions.ts';

/** Tron energy limits per call, in sun, as Request's SDK sets them (contracts.md §8). */
const TRON_APPROVE_FEE_LIMIT = 100_000_000;
const TRON_PAYMENT_FEE_LIMIT = 300_000_000;
/** Tokens that refuse to change a non-zero allowance to another non-zero value (mainnet USDT). */
const RESETS_ALLOWANCE = new Set(['USDT-mainnet']);

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

export interface CalldataDeps {
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
}

/**
 * Calldata for one request (Variant A). ERC20: an `approve` of the ERC20FeeProxy, only when
 * the payer's allowance is short (always when the wallet is unknown), then
 * `transferFromWithReferenceAndFee`. Native: `transferWithReferenceAndFee` carrying the value.
 * Tron: the same two calls as trigger-smart-contract parameters.
 */
export async function buildSingleCalldata(
  deps: CalldataDeps,
  leg: PaymentLeg,
  payer: Payer,
): Promise<SingleCalldata> {
  if (leg.network.kind === 'tron') return buildTron(deps, leg, payer);
  return isNative(leg.currency) ? buildNative(deps, leg, payer) : buildErc20(deps, leg, payer);
}

function contract(
  deps: CalldataDeps,
  leg: PaymentLeg,
  key: 'erc20FeeProxy' | 'ethFeeProxy',
): string {
  const address = deps.chains.contracts(leg.network.id as never)[key];
  if (!address) {
    throw new AppError(
      'network_not_supported',
      `Payments in ${leg.currency.id} are not supported on ${leg.network.id}`,
    );
  }
  return address;
}

function feeArgs(leg: PaymentLeg): [bigint, Address] {
  return [leg.feeAmount, leg.feeAddress ? getAddress(leg.feeAddress) : zeroAddress];
}

async function buildErc20(
  deps: CalldataDeps,
  leg: PaymentLeg,
  payer: Payer,
): Promise<SingleCalldata> {
  const proxy = contract(deps, leg, 'erc20FeeProxy');
  const chainId = leg.network.chainId;
  const token = getAddress(leg.currency.address);
  const required = leg.amount + leg.feeAmount;
  const payment = evmTransaction(
    proxy,
    erc20FeeProxyAbi,
    'transferFromWithReferenceAndFee',
    [
      token,
      getAddress(leg.payee),
      leg.amount,
      referenceBytes(leg.paymentReference),
      ...feeArgs(leg),
    ],
    chainId,
  );
  const approve = (amount: bigint) =>
    evmTransaction(token, erc20Abi, 'approve', [proxy, amount], chainId);
  const requiredAmount = formatAmount(required, leg.currency.decimals);

  if (!payer.wallet) {
    return single([approve(required), payment], 1, { requiredAmount });
  }
  const owner = getAddress(payer.wallet);
  const funder = getAddress(payer.eoaWallet ?? payer.wallet);
  const state = await deps.clients.read(leg.network.id as never, (client) =>
    readPayerState(client, multicallOf(deps, leg), {
      funder,
      owner,
      tokens: [{ token, spender: getAddress(proxy) }],
    }),
  );
  const tokenState = state.tokens.get(token.toLowerCase()) ?? { balance: 0n, allowance: 0n };
  const approvals: EvmTransaction[] = [];
  if (tokenState.allowance < required) {
    if (tokenState.allowance > 0n && RESETS_ALLOWANCE.has(leg.currency.id))
      approvals.push(approve(0n));
    approvals.push(approve(required));
  }
  const fees = networkFee(state.baseFee, leg.network, {
    approvals: approvals.length,
    payment: 'erc20',
  });
  return single([...approvals, payment], approvals.length, {
    requiredAmount,
    hasEnoughBalance: tokenState.balance >= required,
    hasEnoughAllowance: tokenState.allowance >= required,
    hasEnoughGas: state.nativeBalance >= fees.limit,
    balance: formatAmount(tokenState.balance, leg.currency.decimals),
    allowance: formatAmount(tokenState.allowance, leg.currency.decimals),
    nativeBalance: formatAmount(state.nativeBalance, leg.network.native.decimals),
    ...fees.display,
  });
}

async function buildNative(
  deps: CalldataDeps,
  leg: PaymentLeg,
  payer: Payer,
): Promise<SingleCalldata> {
  const proxy = contract(deps, leg, 'ethFeeProxy');
  const value = leg.amount + leg.feeAmount;
  const payment = evmTransaction(
    proxy,
    ethFeeProxyAbi,
    'transferWithReferenceAndFee',
    [getAddress(leg.payee), referenceBytes(leg.paymentReference), ...feeArgs(leg)],
    leg.network.chainId,
    value,
  );
  const requiredAmount = formatAmount(value, leg.currency.decimals);
  if (!payer.wallet) return single([payment], 0, { requiredAmount });
  const funder = getAddress(payer.eoaWallet ?? payer.wallet);
  const state = await deps.clients.read(leg.network.id as never, (client) =>
    readPayerState(client, multicallOf(deps, leg), { funder, owner: funder, tokens: [] }),
  );
  const fees = networkFee(state.baseFee, leg.network, { approvals: 0, payment: 'native' });
  return single([payment], 0, {
    requiredAmount,
    hasEnoughBalance: state.nativeBalance >= value,
    hasEnoughAllowance: true,
    hasEnoughGas: state.nativeBalance >= value + fees.limit,
    balance: formatAmount(state.nativeBalance, leg.currency.decimals),
    nativeBalance: formatAmount(state.nativeBalance, leg.network.native.decimals),
    ...fees.display,
  });
}

async function buildTron(
  deps: CalldataDeps,
  leg: PaymentLeg,
  payer: Payer,
): Promise<SingleCalldata> {
  const proxy = contract(deps, leg, 'erc20FeeProxy');
  const required = leg.amount + leg.feeAmount;
  // With no fee address, Request's SDK names the payer; with no payer either, the zero account.
  const feeAddress = leg.feeAddress ?? payer.wallet ?? evmToTron(zeroAddress);
  const approve = tronCall(
    leg.currency.address,
    'approve',
    [
      { type: 'address', value: proxy },
      { type: 'uint256', value: required.toString() },
    ],
    TRON_APPROVE_FEE_LIMIT,
    leg.network.chainId,
  );
  const payment = tronCall(
    proxy,
    'transferFromWithReferenceAndFee',
    [
      { type: 'address', value: leg.currency.address },
      { type: 'address', value: leg.payee },
      { type: 'uint256', value: leg.amount.toString() },
      { type: 'bytes', value: referenceBytes(leg.paymentReference) },
      { type: 'uint256', value: leg.feeAmount.toString() },
      { type: 'address', value: feeAddress },
    ],
    TRON_PAYMENT_FEE_LIMIT,
    leg.network.chainId,
  );
  // Allowances on Tron are read through a full node, not Multicall3; until one is configured
  // the approval is always included (re-approving the exact amount is harmless).
  return single([approve, payment], 1, {
    requiredAmount: formatAmount(required, leg.currency.decimals),
  });
}

function tronCall(
  contractAddress: string,
  name: 'approve' | 'transferFromWithReferenceAndFee',
  parameters: readonly { type: string; value: string }[],
  feeLimit: number,
  chainId: number,
): TronTransaction {
  const abi = name === 'approve' ? erc20Abi : erc20FeeProxyAbi;
  const args = parameters.map((p) =>
    p.type === 'address' ? evmForm(p.value) : p.type === 'uint256' ? BigInt(p.value) : p.value,
  );
  const { data } = evmTransaction(evmForm(contractAddress), abi, name, args, chainId);
  return {
    type: 'tron',
    contractAddress,
    functionSelector: TRON_SELECTORS[name],
    parameters,
    feeLimit,
    callValue: 0,
    data,
    chainId,
  };
}

function multicallOf(deps: CalldataDeps, leg: PaymentLeg): Address {
  const address = deps.chains.contracts(leg.network.id as never).multicall3;
  if (!address)
    throw new AppError('chain_unavailable', `Network ${leg.network.id} has no Multicall3`);
  return getAddress(address);
}

function single(
  transactions: PaymentTransaction[],
  approvals: number,
  details: Omit<
    SingleMetadata,
    | 'stepsRequired'
    | 'needsApproval'
    | 'paymentTransactionIndex'
    | 'routeType'
    | 'transactionSponsorshipFeeUsd'
  >,
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
