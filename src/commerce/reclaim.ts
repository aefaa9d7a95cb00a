import { getAddress } from 'viem';
import { isoFromSeconds } from '../base/dates.ts';
import { AppError } from '../base/errors.ts';
import type { EvmTransaction } from '../payments/transactions.ts';
import { connectedWallet } from './buyer.ts';
import { reclaimTransaction } from './calldata/reclaim.ts';
import type { CommerceDeps } from './deps.ts';
import type { CommercePaymentRow } from './payment.ts';
import { loadState } from './store.ts';
import { canReclaim } from './view.ts';

/**
 * `GET /v2/commerce-payments/token/{payToken}/reclaim?wallet=`: the buyer's `reclaimPayment`,
 * once the authorization has expired by the chain's clock (chain-time.ts: the escrow judges by
 * its block time) and something is still held. Only the payer may send it (the wrapper refuses
 * anyone else), so another wallet is refused here before it pays gas for a revert. Nothing is
 * written: the reclaim counts once detection reads its event.
 */
export async function buyerReclaim(
  deps: CommerceDeps,
  payment: CommercePaymentRow,
  wallet: string | undefined,
): Promise<EvmTransaction> {
  const address = connectedWallet(wallet);
  const now = await deps.chainTime.now(payment.network);
  const loaded = await loadState(deps.db, payment, now);
  if (payment.payer === null || loaded.state.held === 0n) {
    throw new AppError(
      'commerce_nothing_to_reclaim',
      'Nothing is held to reclaim: the payment is not authorized, or was captured, released or reclaimed',
    );
  }
  if (payment.payer.toLowerCase() !== address.toLowerCase()) {
    throw new AppError(
      'commerce_not_payer',
      `Only the payer can reclaim this payment: ${getAddress(payment.payer)}, not ${address}`,
    );
  }
  if (!canReclaim(loaded)) {
    throw new AppError(
      'commerce_authorization_not_expired',
      `The authorization holds until ${isoFromSeconds(payment.authorizationExpiry)} (authorizationExpiry): it can be reclaimed after`,
    );
  }
  return reclaimTransaction(payment);
}
