import { and, eq, inArray } from 'drizzle-orm';
import { AppError } from '../../base/errors.ts';
import type { Database } from '../../db/client.ts';
import { requests, securePayments } from '../../db/schema.ts';
import { TRON_BATCH_MESSAGE } from '../../payments/calldata/batch.ts';
import type { RequestRow } from '../../requests/requests.ts';
import { checkRedirect } from '../../secure-payments/create.ts';
import { insertLink } from '../../secure-payments/insert-link.ts';
import type { CreatedLink, LinkCaller } from '../../secure-payments/link-caller.ts';
import { parentsWaitingOn } from '../../secure-payments/link-children.ts';
import { effectiveStatus, type LinkRow } from '../../secure-payments/link-row.ts';
import { mintLink } from '../../secure-payments/mint-link.ts';
import type { PayoutLinkDeps } from './create.ts';
import { checkTotalsFit, distinctTokens } from './grouping.ts';

/**
 * Batch payout links: several pending payout links merged into one link that pays them all
 * and invalidates them (`POST /v2/secure-payments/batch-payouts`).
 */

export const PAYOUT_NETWORKS_MESSAGE = 'All payout links of a batch must be on the same network';
export const PAYOUT_CREATORS_MESSAGE =
  'All payout links of a batch must have the same creatorWalletAddress';
export const unknownPayoutMessage = (token: string) => `Payout link ${token} not found`;
export const notSinglePayoutMessage = (token: string) =>
  `Secure payment ${token} is not a single payout link`;
export const inMulticallMessage = (token: string) =>
  `Payout link ${token} is part of a pending multicall payout; it cannot be batched`;
export const notPendingPayoutMessage = (token: string, status: string) =>
  `Payout link ${token} is ${status}; only pending payout links can be batched`;

export interface BatchPayoutLinkInput {
  readonly tokens: readonly string[];
  readonly redirectUrl?: string | undefined;
  readonly redirectLabel?: string | undefined;
}

/**
 * `POST /v2/secure-payments/batch-payouts`: the requests of ≥ 2 pending single payout links of
 * the caller's account (one network, one creator wallet) move to a new batch payout link, and
 * the input links become `invalidated`, all in one transaction. The input links are locked and
 * checked inside it, so two merges of the same link cannot both succeed.
 */
export async function createBatchPayoutLink(
  deps: Pick<PayoutLinkDeps, 'db' | 'clock' | 'payUrl'>,
  caller: LinkCaller,
  input: BatchPayoutLinkInput,
): Promise<CreatedLink> {
  const redirect = checkRedirect(input);
  const tokens = distinctTokens(input.tokens, 'tokens');
  return mintLink(deps, caller, (draft) =>
    deps.db.transaction(async (tx) => {
      const { links, merged } = await lockMergeable(tx, caller.accountId, tokens, input, draft.now);
      const [first] = links;
      if (!first) throw new Error('batch payout without links');
      const batch = await insertLink(tx, {
        ...draft,
        network: first.network,
        creatorWallet: first.creatorWallet,
        ...redirect,
      });
      for (const [position, request] of merged.entries()) {
        await tx
          .update(requests)
          .set({ securePaymentId: batch.id, position })
          .where(eq(requests.id, request.id));
      }
      await tx
        .update(securePayments)
        .set({ status: 'invalidated' })
        .where(
          inArray(
            securePayments.id,
            links.map((link) => link.id),
          ),
        );
      return merged.map((request) => request.requestId);
    }),
  );
}

/**
 * The account's payout links of `tokens` (as sent: `input.tokens`), locked and each checked,
 * the first bad one named: all pending single payout links that no multicall waits on, on one
 * network other than Tron, of one creator, whose totals fit one batch. With their requests in
 * the order the tokens were sent, the order of the batch.
 */
async function lockMergeable(
  tx: Database,
  accountId: string,
  tokens: readonly string[],
  input: BatchPayoutLinkInput,
  now: Date,
): Promise<{ links: LinkRow[]; merged: RequestRow[] }> {
  // Requests before links, in the order settlement takes them (a payment updates its request,
  // then completes its link), so a merge and a payment of the same link cannot deadlock.
  const owned = and(eq(securePayments.accountId, accountId), inArray(securePayments.token, tokens));
  const children = await tx
    .select()
    .from(requests)
    .where(
      inArray(
        requests.securePaymentId,
        tx.select({ id: securePayments.id }).from(securePayments).where(owned),
      ),
    )
    .for('update');
  const links = await tx.select().from(securePayments).where(owned).for('update');
  const byToken = new Map(links.map((link) => [link.token, link]));
  // Checked in the order sent, so the first bad token is the one named.
  for (const [index, wanted] of tokens.entries()) {
    const link = byToken.get(wanted);
    const name = input.tokens[index] ?? wanted;
    if (!link) throw new AppError('unknown_payout_link', unknownPayoutMessage(name));
    if (!link.payout || link.creatorWallet === null) {
      throw new AppError('not_single_payout', notSinglePayoutMessage(name));
    }
    // Before the count: a merged link has handed its request to the batch.
    const status = effectiveStatus(link, now);
    if (status !== 'pending') {
      throw new AppError('payout_link_not_pending', notPendingPayoutMessage(name, status));
    }
    if (children.filter((r) => r.securePaymentId === link.id).length !== 1) {
      throw new AppError('not_single_payout', notSinglePayoutMessage(name));
    }
  }
  // A link a pending multicall waits on stays its own: merged, it would drop out of it.
  const waitedOn = await parentsWaitingOn(
    tx,
    links.map((link) => link.id),
    now,
  );
  for (const [index, wanted] of tokens.entries()) {
    const link = byToken.get(wanted);
    if (link && waitedOn.has(link.id)) {
      throw new AppError(
        'payout_link_in_multicall',
        inMulticallMessage(input.tokens[index] ?? wanted),
      );
    }
  }
  if (links.some((link) => link.network === 'tron')) {
    throw new AppError('tron_batch_not_supported', TRON_BATCH_MESSAGE);
  }
  if (new Set(links.map((link) => link.network)).size > 1) {
    throw new AppError('payout_networks_differ', PAYOUT_NETWORKS_MESSAGE);
  }
  if (new Set(links.map((link) => link.creatorWallet)).size > 1) {
    throw new AppError('payout_creators_differ', PAYOUT_CREATORS_MESSAGE);
  }
  checkTotalsFit(children, 'tokens');
  const merged = tokens.map((wanted) => {
    const link = byToken.get(wanted);
    const request = children.find((r) => r.securePaymentId === link?.id);
    if (!request) throw new Error('payout link lost its request');
    return request;
  });
  return { links, merged };
}
