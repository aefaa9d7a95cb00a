import { and, eq, inArray } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { AppError, type FieldError, ValidationError } from '../base/errors.ts';
import { ulid } from '../base/ulid.ts';
import { isFiat } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { requests, securePayments } from '../db/schema.ts';
import { parseWallet } from '../destinations/destination-id.ts';
import { MAX_BASE_UNITS, parseAmount, TOTAL_TOO_LARGE_MESSAGE } from '../payments/amounts.ts';
import { TRON_BATCH_MESSAGE } from '../payments/calldata/batch.ts';
import { insertRequests } from '../requests/requests.ts';
import { checkRedirect, securePaymentUrl } from './create.ts';
import { insertLink } from './insert-link.ts';
import type { CreatedLink, LinkCaller } from './link-caller.ts';
import { effectiveStatus } from './link-row.ts';
import { parentsWaitingOn } from './multicall-children.ts';

/**
 * Hosted payout links: money going out of `creatorWalletAddress` to one recipient
 * (`POST /v2/secure-payments/payouts`), and several of them merged into one batch link that
 * invalidates them (`POST /v2/secure-payments/batch-payouts`). A payout link is an ordinary
 * link whose request names the creator as payer; only that wallet is offered the payment.
 */

export const PAYOUT_WALLET_MESSAGE =
  'Only the wallet that created this payout (creatorWalletAddress) can pay it';
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

export interface CreatePayoutInput {
  readonly recipient: string;
  readonly creatorWalletAddress: string;
  readonly network: string;
  readonly currency: string;
  readonly amount: string;
  readonly reference?: string | undefined;
  readonly recipientIdentifier?: string | undefined;
  readonly redirectUrl?: string | undefined;
  readonly redirectLabel?: string | undefined;
}

interface Deps {
  readonly db: Database;
  readonly clock: Clock;
  readonly chains: ChainRegistry;
  readonly payUrl: string;
}

/**
 * `POST /v2/secure-payments/payouts`: one request from the creator's wallet to the recipient,
 * in a currency of the named network, written with its link in one transaction. Every field
 * problem is reported at once, before anything is written.
 */
export async function createPayoutLink(
  deps: Deps,
  caller: LinkCaller,
  input: CreatePayoutInput,
): Promise<CreatedLink> {
  checkRedirect(input.redirectUrl, input.redirectLabel);
  const errors: FieldError[] = [];
  const network = deps.chains.network(input.network);
  if (!network) {
    errors.push({
      field: 'network',
      message: `must be one of ${deps.chains.networkIds.join(', ')}`,
    });
  }
  const currency = deps.chains.currency(input.currency);
  if (!currency || isFiat(currency)) {
    errors.push({ field: 'currency', message: 'is not a supported currency id' });
  } else if (network && currency.network !== network.id) {
    errors.push({ field: 'currency', message: `must be a currency of ${network.id}` });
  }
  const wallet = (field: 'recipient' | 'creatorWalletAddress'): string | null => {
    if (!network) return null;
    const parsed = parseWallet(input[field], network.chainId);
    if (parsed.ok) return parsed.address;
    errors.push({ field, message: parsed.message });
    return null;
  };
  const recipient = wallet('recipient');
  const creator = wallet('creatorWalletAddress');
  const amount =
    currency && !isFiat(currency) ? parseAmount(input.amount, currency.decimals) : null;
  if (amount && !amount.ok) errors.push({ field: 'amount', message: amount.message });
  if (errors.length > 0) throw new ValidationError(errors);
  if (!network || !currency || !recipient || !creator || !amount?.ok) {
    throw new Error('payout inputs passed validation without values');
  }

  const now = deps.clock.now();
  const token = ulid(now.getTime());
  const requestIds = await deps.db.transaction(async (tx) => {
    const link = await insertLink(tx, {
      token,
      caller,
      network: network.id,
      now,
      creatorWallet: creator,
      reference: input.reference ?? null,
      payerIdentifier: input.recipientIdentifier ?? null,
      redirectUrl: input.redirectUrl ?? null,
      redirectLabel: input.redirectLabel ?? null,
    });
    const rows = await insertRequests(tx, [
      {
        accountId: caller.accountId,
        clientIdId: caller.clientId?.id ?? null,
        securePaymentId: link.id,
        position: 0,
        network,
        invoiceCurrency: currency,
        paymentCurrency: currency,
        expectedAmount: amount.value,
        payee: recipient,
        payer: creator,
        reference: input.reference ?? null,
        origin: caller.origin,
      },
    ]);
    return rows.map((row) => row.requestId);
  });
  return { token, securePaymentUrl: securePaymentUrl(deps.payUrl, token), requestIds };
}

export interface BatchPayoutInput {
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
  deps: Deps,
  caller: LinkCaller,
  input: BatchPayoutInput,
): Promise<CreatedLink> {
  checkRedirect(input.redirectUrl, input.redirectLabel);
  const tokens = input.tokens.map((token) => token.toUpperCase());
  const seen = new Set<string>();
  for (const [index, token] of tokens.entries()) {
    if (seen.has(token)) {
      throw new ValidationError([{ field: `tokens[${index}]`, message: 'repeats a token' }]);
    }
    seen.add(token);
  }

  const now = deps.clock.now();
  const token = ulid(now.getTime());
  const requestIds = await deps.db.transaction(async (tx) => {
    // Requests before links, in the order settlement takes them (a payment updates its request,
    // then completes its link), so a merge and a payment of the same link cannot deadlock.
    const owned = and(
      eq(securePayments.accountId, caller.accountId),
      inArray(securePayments.token, tokens),
    );
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
    // A batch pays each token's total in one approval and one transfer: it must fit a uint256.
    const totals = new Map<string, bigint>();
    for (const request of children) {
      totals.set(
        request.paymentCurrency,
        (totals.get(request.paymentCurrency) ?? 0n) + request.expectedAmount,
      );
    }
    if ([...totals.values()].some((total) => total > MAX_BASE_UNITS)) {
      throw new ValidationError([{ field: 'tokens', message: TOTAL_TOO_LARGE_MESSAGE }]);
    }

    const [first] = links;
    if (!first) throw new Error('batch payout without links');
    const batch = await insertLink(tx, {
      token,
      caller,
      network: first.network,
      now,
      creatorWallet: first.creatorWallet,
      redirectUrl: input.redirectUrl ?? null,
      redirectLabel: input.redirectLabel ?? null,
    });
    const ordered = tokens.map((wanted) => {
      const link = byToken.get(wanted);
      const request = children.find((r) => r.securePaymentId === link?.id);
      if (!request) throw new Error('payout link lost its request');
      return request;
    });
    for (const [position, request] of ordered.entries()) {
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
    return ordered.map((request) => request.requestId);
  });
  return { token, securePaymentUrl: securePaymentUrl(deps.payUrl, token), requestIds };
}
