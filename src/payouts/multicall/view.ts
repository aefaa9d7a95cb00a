import type { Clock } from '../../base/clock.ts';
import { AppError } from '../../base/errors.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import type { LinkScope } from '../../http/principal.ts';
import { formatAmount } from '../../payments/amounts.ts';
import { amountDue } from '../../requests/legs.ts';
import { DEFAULT_REDIRECT_LABEL } from '../../secure-payments/create.ts';
import { childBlock } from '../../secure-payments/link-children.ts';
import { type Link, loadLink, NO_BRANDING } from '../../secure-payments/links.ts';
import { childContext, messageKeyOf, recoveryActionOf } from './reasons.ts';

/** `GET /v2/secure-payments/multicall-payouts/{token}`: a multicall parent of the caller's. */
export async function multicallView(
  deps: { readonly db: Database; readonly clock: Clock; readonly chains: ChainRegistry },
  scope: LinkScope,
  token: string,
) {
  const link = await loadLink(deps.db, deps.clock, scope, token);
  if (!link.children) {
    throw new AppError('secure_payment_not_found', 'Multicall payout not found');
  }
  return multicallBody(deps.chains, link, deps.clock.now());
}

/**
 * What a multicall parent looks like (`GET /v2/secure-payments/multicall-payouts/{token}`, and
 * `GET /v2/secure-payments/{token}` for the pay page): every child with whether it can be paid
 * now and why not, and the totals of what is still to pay.
 */
export function multicallBody(chains: ChainRegistry, link: Link, now: Date) {
  const children = link.children ?? [];
  const views = children.map((child) => {
    const request = child.requests[0] ?? null;
    const currency = request ? chains.currency(request.paymentCurrency) : undefined;
    const blockReason = childBlock(child, now);
    return {
      securePaymentToken: child.row.token,
      requestId: request?.requestId ?? '',
      position: child.position,
      executable: blockReason === null,
      blockReason,
      messageKey: blockReason ? messageKeyOf(blockReason) : null,
      context: childContext(child.row.token, child.position, child, now),
      recoveryAction: blockReason ? recoveryActionOf(blockReason) : null,
      feePlan: null,
      amount: request ? formatAmount(request.expectedAmount, currency?.decimals ?? 0) : null,
      payee: request?.payee ?? null,
      reference: child.row.reference ?? request?.reference ?? null,
      // Ours: what the pay page shows beside each recipient.
      network: child.row.network,
      paymentCurrency: request?.paymentCurrency ?? null,
      due: request && currency ? formatAmount(amountDue(request), currency.decimals) : null,
    };
  });

  // What the executable children still want, per currency, in the children's order.
  const byCurrency = new Map<string, { network: string; currency: string; total: bigint }>();
  for (const [index, child] of children.entries()) {
    const request = child.requests[0];
    if (!request || !views[index]?.executable) continue;
    const entry = byCurrency.get(request.paymentCurrency) ?? {
      network: request.network,
      currency: request.paymentCurrency,
      total: 0n,
    };
    entry.total += amountDue(request);
    byCurrency.set(request.paymentCurrency, entry);
  }
  const totals = [...byCurrency.values()].map((entry) => ({
    network: entry.network,
    currency: entry.currency,
    totalAmount: formatAmount(entry.total, chains.currency(entry.currency)?.decimals ?? 0),
  }));
  // Payout links carry no fees, so the gross is what the recipients get and the payer pays.
  // Amounts in several currencies do not add up: each is then named with its currency.
  const [one] = totals;
  const gross =
    totals.length === 0
      ? '0'
      : totals.length === 1 && one
        ? one.totalAmount
        : totals.map((t) => `${t.totalAmount} ${t.currency}`).join(' + ');
  const blocked = views.filter((view) => !view.executable).length;
  const payable = link.status === 'pending' || link.status === 'partially_settled';

  return {
    paymentType: 'multicall' as const,
    status: link.status,
    redirectUrl: link.row.redirectUrl,
    redirectLabel: link.row.redirectLabel ?? DEFAULT_REDIRECT_LABEL,
    orchestratorId: null,
    branding: NO_BRANDING,
    analytics: {
      creationTimestamp: link.row.createdAt.toISOString(),
      numberOfPaymentsExcludingFees: views.filter((view) => view.executable).length,
      destinationIds: [],
    },
    requestIds: views.map((view) => view.requestId),
    token: link.row.token,
    canExecute: payable && views.some((view) => view.executable),
    expiresAt: link.row.expiresAt.toISOString(),
    createdAt: link.row.createdAt.toISOString(),
    children: views,
    totals: {
      childCount: views.length,
      blockedChildCount: blocked,
      byDestinationCurrency: totals,
      amountSummary: {
        grossAmount: gross,
        netRecipientAmount: gross,
        totalFees: '0',
        payeeBorneFees: '0',
        payerBorneFees: '0',
        payerTotal: gross,
      },
    },
    // Ours: the network the parent pays on, how, and the only wallet that may pay it.
    network: link.row.network,
    executionKind: executionKindOf(link),
    payout: true as const,
    creatorWalletAddress: link.row.creatorWallet,
  };
}

/**
 * The kind asked for at creation, or the one its children imply: Tron, children on several
 * networks (paid from one source chain: cross-chain), else one network (same chain).
 */
export function executionKindOf(link: Link): 'evm_same_chain' | 'evm_cross_chain' | 'tron_batch' {
  if (link.row.executionKind) return link.row.executionKind;
  if (link.row.network === 'tron') return 'tron_batch';
  const networks = new Set((link.children ?? []).map((child) => child.row.network));
  return networks.size > 1 ? 'evm_cross_chain' : 'evm_same_chain';
}
