import { getAddress, zeroAddress } from 'viem';
import { AppError, ValidationError } from '../base/errors.ts';
import { type LegRouteDeps, legCrossChainCalldata } from '../crosschain/leg-route.ts';
import type { CrossChainCalldata } from '../crosschain/route-answer.ts';
import type { PayableFees } from '../fees/bundle.ts';
import type { Payer } from '../payments/payer.ts';
import type { PaymentLeg } from '../payments/transactions.ts';
import type { Link } from './links.ts';

/**
 * `/pay?chain=&token=` (and `/calldata` with them) on a link: the payer pays from another
 * chain through the routing aggregator (src/crosschain/), and the route's last leg pays the
 * link on its own network through our fee proxy, under its payment reference, then each fee
 * leg under its own. What this file decides is which links and payers may: one request in a
 * token (not Tron, not a batch or a multicall, not a fiat amount or a native currency), a
 * `wallet` that sends the source transaction itself, and a source chain and token that
 * `paymentOptions` offers for the link.
 */

export type CrossChainDeps = LegRouteDeps;

export interface CrossChainQuery {
  readonly chain: string;
  readonly token: string;
}

const refuse = (message: string) => new AppError('crosschain_unavailable', message);

/** Checked before the payer's wallet is read against the link's network. */
export function assertNotTron(link: Link): void {
  if (link.row.network === 'tron') {
    throw refuse(
      'Tron links are paid on Tron only: send neither chain nor token (cross-chain routes start and end on EVM networks)',
    );
  }
}

/**
 * A multicall parent's steps are refreshed by asking `/pay` again: its children's routes are
 * served together (`evm_cross_chain`, src/payouts/multicall/crosschain.ts).
 */
export function assertNotMulticall(link: Link): void {
  if (link.children) {
    throw new AppError(
      'crosschain_route_gone',
      'A multicall payout’s routes are refreshed together: ask /pay with chain and token again',
    );
  }
}

/** A batch link's legs are paid together, on its network. */
export function assertOneLeg(legs: readonly PaymentLeg[]): void {
  if (legs.length > 1) {
    throw refuse('Cross-chain payment of a batch link is not available yet; pay it on its network');
  }
}

/** Refusals that need nothing but the link and the payer's inputs, before any leg is built. */
export function assertCrossChainPayable(payer: Payer, isSafe: boolean): void {
  if (isSafe) {
    throw new AppError('safe_not_supported', 'Multisig (Safe) payments cannot be paid cross-chain');
  }
  if (payer.eoaWallet !== undefined) {
    throw refuse('A smart account cannot pay cross-chain yet: send the paying wallet alone');
  }
  if (payer.wallet === undefined) {
    throw new ValidationError([
      {
        field: 'wallet',
        message: 'is required with chain and token (the wallet that pays on the source chain)',
      },
    ]);
  }
}

/**
 * The cross-chain answer for the link's one leg, or null when the source named is the link's
 * own currency on its own network (nothing to bridge: the same-chain answer serves).
 */
export function linkCrossChainCalldata(
  deps: LegRouteDeps,
  link: Link,
  leg: PaymentLeg,
  payer: Payer,
  query: CrossChainQuery,
  fees: PayableFees | undefined,
): Promise<CrossChainCalldata | null> {
  return legCrossChainCalldata(deps, {
    key: link.row.id,
    what: 'link',
    leg,
    feeCalls: fees?.calls ?? [],
    wallet: getAddress(payer.wallet ?? zeroAddress),
    chain: query.chain,
    token: query.token,
  });
}
