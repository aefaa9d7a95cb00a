import { erc20Abi } from '../../payments/abis.ts';
import { type EvmTransaction, evmTransaction } from '../../payments/transactions.ts';
import type { CommercePaymentRow } from '../payment.ts';

/**
 * The token's `approve(wrapper, amount)`: what the buyer sends before an authorization, and the
 * operator before a refund (the wrapper pulls a refund's funds from the operator).
 */
export function approveWrapperTransaction(
  payment: Pick<CommercePaymentRow, 'tokenAddress' | 'wrapper' | 'chainId'>,
  amount: bigint,
): EvmTransaction {
  return evmTransaction(
    payment.tokenAddress,
    erc20Abi,
    'approve',
    [payment.wrapper, amount],
    payment.chainId,
  );
}
