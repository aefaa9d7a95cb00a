import { getAddress, zeroAddress } from 'viem';
import { erc20Abi, erc20FeeProxyAbi } from '../abis.ts';
import { formatAmount } from '../amounts.ts';
import { networkFee } from '../gas.ts';
import type { Payer } from '../payer.ts';
import { readPayerState } from '../payer-state.ts';
import { referenceBytes } from '../references.ts';
import { type EvmTransaction, evmTransaction, type PaymentLeg } from '../transactions.ts';
import {
  type CalldataDeps,
  type FeeLegCall,
  feeArgs,
  feeProxyOf,
  multicallOf,
  RESETS_ALLOWANCE,
  type SingleCalldata,
  single,
  withFeeLegs,
} from './shared.ts';

/**
 * One ERC20 request: an `approve` of the ERC20FeeProxy, only when the payer's allowance is
 * short (always when the wallet is unknown), then `transferFromWithReferenceAndFee`, then one
 * more per fee leg, to its recipient under its own reference (the approval covers them all).
 */
export async function buildErc20Calldata(
  deps: CalldataDeps,
  leg: PaymentLeg,
  payer: Payer,
  fees: readonly FeeLegCall[] = [],
): Promise<SingleCalldata> {
  const proxy = feeProxyOf(deps, leg, 'erc20FeeProxy');
  const chainId = leg.network.chainId;
  const token = getAddress(leg.currency.address);
  const required = withFeeLegs(leg.amount + leg.feeAmount, fees);
  const feeCalls = fees.map((fee) =>
    evmTransaction(
      proxy,
      erc20FeeProxyAbi,
      'transferFromWithReferenceAndFee',
      [
        token,
        getAddress(fee.recipient),
        fee.amount,
        referenceBytes(fee.paymentReference),
        0n,
        zeroAddress,
      ],
      chainId,
    ),
  );
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
    return single([approve(required), payment, ...feeCalls], 1, { requiredAmount });
  }
  const owner = getAddress(payer.wallet);
  const funder = getAddress(payer.eoaWallet ?? payer.wallet);
  const state = await deps.clients.read(leg.network.id, (client) =>
    readPayerState(client, multicallOf(deps, leg.network), {
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
  const gas = networkFee(state.baseFee, leg.network, {
    approvals: approvals.length,
    payment: 'erc20',
    feeLegs: fees.length,
  });
  return single([...approvals, payment, ...feeCalls], approvals.length, {
    requiredAmount,
    hasEnoughBalance: tokenState.balance >= required,
    hasEnoughAllowance: tokenState.allowance >= required,
    hasEnoughGas: state.nativeBalance >= gas.limit,
    balance: formatAmount(tokenState.balance, leg.currency.decimals),
    allowance: formatAmount(tokenState.allowance, leg.currency.decimals),
    nativeBalance: formatAmount(state.nativeBalance, leg.network.native.decimals),
    ...gas.display,
  });
}
