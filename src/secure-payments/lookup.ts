import { and, eq } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { clientIds, requests, securePayments } from '../db/schema.ts';
import { DEFAULT_REDIRECT_LABEL } from './create.ts';
import { destinationIdsOf, destinationOf } from './display.ts';
import { childBlock, parentsWaitingOn } from './link-children.ts';
import { type Link, linkPayments, loadLink } from './links.ts';
import { securePaymentUrl } from './mint-link.ts';

/**
 * `GET /v2/secure-payments?requestId=` alone: the link of one request, as the reference's
 * lookup object (api-facts §2.11), which real clients parse. Fields of features not built here
 * (KYT results, orchestrators, fee plans, multicall) carry their empty values.
 */
export async function lookupLink(
  deps: { readonly db: Database; readonly clock: Clock; readonly chains: ChainRegistry },
  payUrl: string,
  accountId: string,
  requestId: string,
) {
  const [match] = await deps.db
    .select({ token: securePayments.token, clientIdId: securePayments.clientIdId })
    .from(requests)
    .innerJoin(securePayments, eq(securePayments.id, requests.securePaymentId))
    .where(and(eq(requests.accountId, accountId), eq(requests.requestId, requestId.toLowerCase())));
  if (!match) throw new AppError('secure_payment_not_found', 'Secure payment not found');
  const link = await loadLink(deps.db, deps.clock, { accountId }, match.token);
  const [first] = link.requests;
  const destinationIds = await destinationIdsOf(deps.db, link);
  const latest = [...(await linkPayments(deps.db, link)).values()]
    .flat()
    .sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime())
    .at(-1);
  const clientId =
    match.clientIdId === null
      ? null
      : ((
          await deps.db
            .select({ value: clientIds.clientId })
            .from(clientIds)
            .where(eq(clientIds.id, match.clientIdId))
        )[0]?.value ?? null);
  const row = link.row;
  return {
    token: row.token,
    securePaymentUrl: securePaymentUrl(payUrl, row.token),
    status: link.status,
    paymentType: link.requests.length > 1 ? ('batch' as const) : ('single' as const),
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    redirectUrl: row.redirectUrl,
    redirectLabel: row.redirectLabel ?? DEFAULT_REDIRECT_LABEL,
    completedAt: row.completedAt?.toISOString() ?? null,
    payerAddress: latest?.payerAddress ?? null,
    payerKytResults: [],
    payeeKytResults: [],
    destination: first ? destinationOf(deps.chains, first, destinationIds) : null,
    claimedDestination: null,
    orchestratorId: null,
    feePlan: row.feePlan ?? null,
    network: row.network,
    currency: first?.paymentCurrency ?? null,
    executionKind: null,
    identityMode: row.clientIdId === null ? ('manual_dashboard' as const) : ('client_id' as const),
    clientId,
    branding: { whitelabelEnabled: false, source: 'request_network' as const },
    ...(await multicallEligibility(deps.db, link, deps.clock.now())),
    requestIds: link.requests.map((r) => r.requestId),
    payout: row.payout,
    reference: row.reference,
  };
}

/**
 * Whether the link could be a child of a multicall payout, and if not, why (api-facts §2.10):
 * the reasons of the link alone, then, as creation checks, whether another multicall that has
 * not expired already pays it.
 */
async function multicallEligibility(db: Database, link: Link, now: Date) {
  const blockReason =
    childBlock({ position: 0, row: link.row, requests: link.requests }, now) ??
    ((await parentsWaitingOn(db, [link.row.id], now)).has(link.row.id)
      ? ('request_processing' as const)
      : null);
  return { childExecutable: blockReason === null, blockReason };
}
