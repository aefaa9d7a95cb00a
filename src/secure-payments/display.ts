import { inArray } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { type ResolvedBranding, resolveLinkBranding } from '../branding/resolve.ts';
import { isNative } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { PaymentOptions, PaymentOptionsReader } from '../crosschain/payment-options.ts';
import type { RouteQuoter } from '../crosschain/quote-route.ts';
import type { Database } from '../db/client.ts';
import { payeeDestinations } from '../db/schema.ts';
import { NATIVE_TOKEN_ADDRESS } from '../destinations/destination-id.ts';
import type { FeeLegView } from '../fees/legs.ts';
import type { LinkScope } from '../http/principal.ts';
import { formatAmount } from '../payments/amounts.ts';
import type { RequestRow } from '../requests/requests.ts';
import { requestUnits } from '../requests/units.ts';
import { openingDecision } from '../screening/opening.ts';
import { bridgeTransfersOf } from './bridge-intent.ts';
import { type CalldataQuery, checkPayerInputs, gatedLink } from './calldata.ts';
import { DEFAULT_REDIRECT_LABEL } from './create.ts';
import { linkPaymentOptions } from './link-payment-options.ts';
import { assertPayable, type Link, linkFeeLegs, loadLink } from './links.ts';
import type { ParentLinks } from './parent-links.ts';

/**
 * `GET /v2/secure-payments/{token}`: a payable link as its page shows it, once the payer inputs
 * that /pay takes are checked the same way; a multicall parent as payouts shows it. With a
 * `wallet`, a single or batch link carries the payer's `paymentOptions`
 * (link-payment-options.ts), read beside the rest.
 */
export async function linkDisplay(
  deps: {
    readonly db: Database;
    readonly clock: Clock;
    readonly chains: ChainRegistry;
    readonly parents: ParentLinks;
    readonly paymentOptions: PaymentOptionsReader;
    readonly routes: RouteQuoter;
    readonly wakeDispatcher?: (() => void) | undefined;
  },
  scope: LinkScope,
  token: string,
  query: CalldataQuery,
  log?: { warn(details: object, message: string): void },
) {
  const link = await loadLink(deps.db, deps.clock, scope, token);
  await assertPayable(deps, link);
  const payer = checkPayerInputs(link, query);
  const now = deps.clock.now();
  if (link.children) return deps.parents.display(link, now);
  // A wallet off the allowlist opening the link: reported, and told why (src/screening/).
  const accessDecision = await openingDecision(deps, gatedLink(link), payer);
  const [destinationIds, branding, feeLegs, paymentOptions] = await Promise.all([
    destinationIdsOf(deps.db, link),
    resolveLinkBranding(deps.db, link.row.clientIdId),
    linkFeeLegs(deps, link),
    linkPaymentOptions(deps, link, payer, now, log),
  ]);
  const bridgeTransfers = bridgeTransfersOf(link);
  const body = displayBody(deps.chains, link, destinationIds, branding, feeLegs, {
    paymentOptions,
    bridgeTransfers,
  });
  return accessDecision ? { ...body, accessDecision } : body;
}

/** Destination row ids whose public ids a process keeps; past it the oldest is dropped. */
const MAX_KEPT_DESTINATION_IDS = 10_000;
/** Public destination ids by row id, per database: a row's id never changes, so it is kept. */
const keptDestinationIds = new WeakMap<Database, Map<string, string>>();

/**
 * Public ids of the destinations the link's requests pay, by destination row id. A row's public
 * id is fixed when the row is made (it names the wallet, chain and token), so an id read once is
 * kept and a busy link's reads do not join the destinations table again.
 */
export async function destinationIdsOf(
  db: Database,
  link: Link,
): Promise<ReadonlyMap<string, string>> {
  let kept = keptDestinationIds.get(db);
  if (kept === undefined) {
    kept = new Map();
    keptDestinationIds.set(db, kept);
  }
  const found = new Map<string, string>();
  const missing: string[] = [];
  for (const { destinationId: rowId } of link.requests) {
    if (rowId === null || found.has(rowId)) continue;
    const id = kept.get(rowId);
    if (id === undefined) missing.push(rowId);
    else found.set(rowId, id);
  }
  if (missing.length === 0) return found;
  const rows = await db
    .select({ id: payeeDestinations.id, destinationId: payeeDestinations.destinationId })
    .from(payeeDestinations)
    .where(inArray(payeeDestinations.id, [...new Set(missing)]));
  for (const row of rows) {
    found.set(row.id, row.destinationId);
    if (kept.size >= MAX_KEPT_DESTINATION_IDS) kept.delete(kept.keys().next().value ?? '');
    kept.set(row.id, row.destinationId);
  }
  return found;
}

/**
 * Where a request pays, as the reference names it. Null only for a network this server no
 * longer serves (its token is unknown then). Not masked, so the destination id is given when
 * the request has one (api-facts §2.6); natives are named by the sentinel address, as in
 * destination ids.
 */
export function destinationOf(
  chains: ChainRegistry,
  request: RequestRow,
  destinationIds: ReadonlyMap<string, string>,
) {
  const currency = chains.currency(request.paymentCurrency);
  if (!currency) return null;
  const destinationId =
    request.destinationId === null ? undefined : destinationIds.get(request.destinationId);
  return {
    ...(destinationId !== undefined && { destinationId }),
    payeeAddress: request.payee,
    tokenAddress: isNative(currency) ? NATIVE_TOKEN_ADDRESS : currency.address,
    walletAddress: request.payee,
    network: request.network,
    isMasked: false,
  };
}

/** Display data (`GET /v2/secure-payments/{token}`): the single or the batch shape. */
function displayBody(
  chains: ChainRegistry,
  link: Link,
  destinationIds: ReadonlyMap<string, string>,
  branding: ResolvedBranding | null,
  feeLegs: readonly FeeLegView[],
  payer: {
    readonly paymentOptions: PaymentOptions | undefined;
    readonly bridgeTransfers: readonly { txHash: string; status: string }[];
  },
) {
  const { paymentOptions, bridgeTransfers } = payer;
  const parts = link.requests.map((request) => {
    // A fiat request counts in its fiat (cents, yen): what the wallet sends is only known from
    // the on-chain rate, which /pay quotes.
    const units = requestUnits(chains, request);
    const amount = formatAmount(request.expectedAmount, units.decimals);
    return {
      requestId: request.requestId,
      payee: request.payee,
      amount,
      paymentCurrency: request.paymentCurrency,
      isNativeCurrency: units.payment ? isNative(units.payment) : false,
      destination: destinationOf(chains, request, destinationIds),
      invoice: units.converts
        ? { invoiceCurrency: request.invoiceCurrency, invoiceAmount: amount }
        : null,
    };
  });
  const common = {
    status: link.status,
    token: link.row.token,
    redirectUrl: link.row.redirectUrl,
    redirectLabel: link.row.redirectLabel ?? DEFAULT_REDIRECT_LABEL,
    branding,
    requestIds: parts.map((p) => p.requestId),
    network: link.row.network,
    reference: link.row.reference,
    feePlan: link.row.feePlan ?? null,
    ...(paymentOptions !== undefined && { paymentOptions }),
    // Ours: the plan's fee legs, each paid or outstanding (a payer may pay some before others).
    ...(feeLegs.length > 0 && { feeLegs }),
    // Ours: the transfers from other networks recorded on the link, each where it stands.
    ...(bridgeTransfers.length > 0 && { bridgeTransfers }),
    expiresAt: link.row.expiresAt.toISOString(),
    // Ours: a payout link is paid only from the wallet that created it (the pay page says so).
    ...(link.row.payout && {
      payout: true as const,
      creatorWalletAddress: link.row.creatorWallet,
    }),
  };
  const [only] = parts;
  if (only && parts.length === 1) {
    return {
      paymentType: 'single' as const,
      ...common,
      payee: only.payee,
      amount: only.amount,
      paymentCurrency: only.paymentCurrency,
      isNativeCurrency: only.isNativeCurrency,
      destination: only.destination,
      // Ours: the link is written in fiat and paid in paymentCurrency at the on-chain rate.
      ...only.invoice,
    };
  }
  return {
    paymentType: 'batch' as const,
    ...common,
    payees: parts.map((p) => p.payee),
    amounts: parts.map((p) => p.amount),
    paymentCurrencies: parts.map((p) => p.paymentCurrency),
    // Ours: a batch holding fiat requests says what each amount is written in.
    ...(parts.some((p) => p.invoice) && {
      invoiceCurrencies: parts.map((p) => p.invoice?.invoiceCurrency ?? p.paymentCurrency),
    }),
    isNativeCurrency: parts.map((p) => p.isNativeCurrency),
    destinations: parts.map((p) => p.destination),
  };
}
