import { zeroAddress } from 'viem';
import { evmToTron } from '../../chains/tron-address.ts';
import { erc20Abi, erc20FeeProxyAbi, TRON_SELECTORS, tronBatchPaymentsAbi } from '../abis.ts';
import { formatAmount } from '../amounts.ts';
import type { Payer } from '../payer.ts';
import { referenceBytes } from '../references.ts';
import {
  evmForm,
  evmTransaction,
  type PaymentLeg,
  type TronParameter,
  type TronTransaction,
} from '../transactions.ts';
import {
  type CalldataDeps,
  type FeeLegCall,
  feeProxyOf,
  type SingleCalldata,
  single,
  withFeeLegs,
} from './shared.ts';

/** Tron energy limits per call, in sun, as Request's SDK sets them (contracts.md §8). */
export const TRON_APPROVE_FEE_LIMIT = 100_000_000;
export const TRON_PAYMENT_FEE_LIMIT = 300_000_000;

/**
 * One TRC-20 request: `approve` of the ERC20FeeProxy, then `transferFromWithReferenceAndFee`,
 * as trigger-smart-contract parameters for TronWeb (no EthereumFeeProxy exists on Tron).
 */
export async function buildTronCalldata(
  deps: CalldataDeps,
  leg: PaymentLeg,
  payer: Payer,
  fees: readonly FeeLegCall[] = [],
): Promise<SingleCalldata> {
  const proxy = feeProxyOf(deps, leg, 'erc20FeeProxy');
  const required = withFeeLegs(leg.amount + leg.feeAmount, fees);
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
  // A fee leg: the same proxy call to the fee's recipient, under its reference, with no fee.
  const feeCalls = fees.map((fee) =>
    tronCall(
      proxy,
      'transferFromWithReferenceAndFee',
      [
        { type: 'address', value: leg.currency.address },
        { type: 'address', value: fee.recipient },
        { type: 'uint256', value: fee.amount.toString() },
        { type: 'bytes', value: referenceBytes(fee.paymentReference) },
        { type: 'uint256', value: '0' },
        { type: 'address', value: evmToTron(zeroAddress) },
      ],
      TRON_PAYMENT_FEE_LIMIT,
      leg.network.chainId,
    ),
  );
  // Allowances on Tron are read through a full node, not Multicall3; until one is configured
  // the approval is always included (re-approving the exact amount is harmless).
  return single([approve, payment, ...feeCalls], 1, {
    requiredAmount: formatAmount(required, leg.currency.decimals),
  });
}

type TronFunction = keyof typeof TRON_SELECTORS;

const ABIS: Record<TronFunction, readonly unknown[]> = {
  approve: erc20Abi,
  transferFromWithReferenceAndFee: erc20FeeProxyAbi,
  batchERC20PaymentsWithReference: tronBatchPaymentsAbi,
  batchERC20PaymentsMultiTokensWithReference: tronBatchPaymentsAbi,
};

/** The ABI of a Tron call by its selector (TronWeb's signature), as `tronCall` encoded it. */
export function abiOfTronSelector(selector: string): readonly unknown[] | undefined {
  const name = (Object.keys(TRON_SELECTORS) as TronFunction[]).find(
    (key) => TRON_SELECTORS[key] === selector,
  );
  return name ? ABIS[name] : undefined;
}

/** A call of `name` on a Tron contract: TronWeb's parameters, and the same call ABI-encoded. */
export function tronCall(
  contractAddress: string,
  name: TronFunction,
  parameters: readonly TronParameter[],
  feeLimit: number,
  chainId: number,
): TronTransaction {
  const { data } = evmTransaction(
    evmForm(contractAddress),
    ABIS[name],
    name,
    tronArguments(parameters),
    chainId,
  );
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

/** TronWeb's parameters as the ABI encoder takes them: addresses as their 20 bytes. */
export function tronArguments(parameters: readonly TronParameter[]): unknown[] {
  return parameters.map((p) =>
    typeof p.value === 'string'
      ? abiArgument(p.type, p.value)
      : p.value.map((element) => abiArgument(p.type.slice(0, -2), element)),
  );
}

function abiArgument(type: string, value: string): unknown {
  return type === 'address' ? evmForm(value) : type === 'uint256' ? BigInt(value) : value;
}
