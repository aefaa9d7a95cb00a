import { getAddress } from 'viem';
import { ethFeeProxyAbi } from '../abis.ts';
import { formatAmount } from '../amounts.ts';
import { networkFee } from '../gas.ts';
import type { Payer } from '../payer.ts';
import { readPayerState } from '../payer-state.ts';
import { referenceBytes } from '../references.ts';
import { evmTransaction, type PaymentLeg } from '../transactions.ts';
import {
  type CalldataDeps,
  feeArgs,
  feeProxyOf,
  multicallOf,
  type SingleCalldata,
  single,
} from './shared.ts';

/**
 * One request in the network's native currency: `transferWithReferenceAndFee` on the
 * EthereumFeeProxy, carrying amount plus fee as value (the proxy pays the payee the rest).
 */
export async function buildNativeCalldata(
  deps: CalldataDeps,
  leg: PaymentLeg,
  payer: Payer,
): Promise<SingleCalldata> {
  const proxy = feeProxyOf(deps, leg, 'ethFeeProxy');
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
  const state = await deps.clients.read(leg.network.id, (client) =>
    readPayerState(client, multicallOf(deps, leg.network), { funder, owner: funder, tokens: [] }),
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
