import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import { type ChainClients, ChainUnavailableError } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import {
  type SignedTronTransaction,
  type TronGridClient,
  TronGridError,
} from '../chains/tron-grid.ts';
import type { Database } from '../db/client.ts';
import type { LinkScope } from '../http/principal.ts';
import { buildSingleCalldata } from '../payments/calldata/single.ts';
import { buildTronBatchCalldata, tronBatchSteps } from '../payments/calldata/tron-batch.ts';
import type { TronTransaction } from '../payments/transactions.ts';
import { matchExpected, readSignedTrigger, type SignedInput } from '../payments/tron-signed.ts';
import { checkLinkPayer } from '../screening/gate.ts';
import type { ScreeningService } from '../screening/screen.ts';
import { assertPayoutWallet, gatedLink } from './calldata.ts';
import { assertPayable, completedError, linkLegs, loadLink } from './links.ts';

export interface TronBroadcastDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  /** The Tron full node at `RPC_URL_TRON`; null when none is configured. */
  readonly tronNode: TronGridClient | null;
  /** Screens the payers of links that ask for it (src/screening/). */
  readonly screening: ScreeningService;
  readonly wakeDispatcher?: (() => void) | undefined;
}

/** A transaction as TronWeb signs it, its id left out or not (it is computed). */
export type SignedTransaction = SignedInput & Omit<SignedTronTransaction, 'txID'>;

/** What the node answered when it took the transaction. */
export interface RelayAnswer {
  readonly result: true;
  readonly txid: string;
  readonly code?: string;
  readonly message?: string;
}

/**
 * The payer's wallet signed one of the link's Tron calls; we relay it to the network only if it
 * is exactly a call the link expects from that wallet (the approval or the payment, rebuilt
 * here for the transaction's owner), so a page cannot be used to relay anything else.
 */
export async function relayTronTransaction(
  deps: TronBroadcastDeps,
  log: Pick<FastifyBaseLogger, 'info' | 'warn'>,
  scope: LinkScope,
  token: string,
  signed: SignedTransaction,
): Promise<RelayAnswer> {
  const link = await loadLink(deps.db, deps.clock, scope, token);
  await assertPayable(deps, link);
  if (link.row.network !== 'tron')
    throw new AppError(
      'tron_link_required',
      `This link is paid on ${link.row.network}, not Tron: send its transactions from the wallet`,
    );
  const legs = linkLegs(deps.chains, link, deps.clock.now());
  const [leg, ...others] = legs;
  if (!leg) throw await completedError(deps, link);
  // Tron links hold one request (Tron has no batch payments) unless they are multicall parents,
  // which pay through the Tron batch contract: a second leg elsewhere is a broken invariant.
  if (others.length > 0 && !link.children) {
    throw new Error(`Tron link ${link.row.id} has several requests`);
  }

  const call = await readSignedTrigger(signed);
  const payer = { wallet: call.owner };
  // A payout (or a multicall of payouts) is paid by its creator only, here as on /pay.
  assertPayoutWallet(link, payer);
  // The transaction's owner is the payer: refused here as on /pay (allowlist, screening), a
  // wallet that built its own calls is not relayed either.
  await checkLinkPayer(deps, gatedLink(link), payer);
  const expected = link.children
    ? tronBatchSteps(buildTronBatchCalldata(deps, legs, payer))
    : ((await buildSingleCalldata(deps, leg, payer)).transactions as TronTransaction[]);
  matchExpected(call, expected);

  if (!deps.tronNode) throw new ChainUnavailableError('tron');
  let answer: Awaited<ReturnType<TronGridClient['broadcastTransaction']>>;
  try {
    answer = await deps.tronNode.broadcastTransaction({ ...signed, txID: call.txID });
  } catch (error) {
    if (error instanceof TronGridError) {
      // The client's messages name the method and path only, never the API key.
      log.warn(
        { txID: call.txID, reason: error.reason, status: error.status, detail: error.message },
        'tron broadcast failed',
      );
      throw new AppError(
        'tron_node_unreachable',
        'The Tron node did not answer; try again shortly',
      );
    }
    throw error;
  }
  if (!answer.accepted) {
    log.info({ txID: call.txID, nodeCode: answer.code }, 'tron node refused a relayed transaction');
    throw new AppError(
      'tron_broadcast_refused',
      `The Tron node refused the transaction: ${answer.code}${answer.message ? ` (${answer.message})` : ''}`,
      { details: { nodeCode: answer.code, nodeMessage: answer.message } },
    );
  }
  log.info({ txID: answer.txid }, 'relayed a tron transaction');
  return {
    result: true,
    txid: answer.txid,
    ...(answer.code !== undefined && { code: answer.code }),
    ...(answer.message !== undefined && { message: answer.message }),
  };
}
