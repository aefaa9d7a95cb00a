import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { ClientIdRow } from '../auth/client-ids.ts';
import { conversionPath } from '../chains/conversion-routes.ts';
import { type Currency, isFiat } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/client.ts';
import { preparedPerDatabase } from '../db/prepared.ts';
import { requests, securePayments } from '../db/schema.ts';
import {
  boundDestination,
  DESTINATION_MISMATCH_MESSAGE,
  type DestinationRow,
  findCanonicalDestination,
  parseTarget,
  type ResolvedTarget,
} from '../destinations/destinations.ts';
import { AppError, type FieldError, ValidationError } from '../errors.ts';
import { MAX_BASE_UNITS, parseAmount, TOTAL_TOO_LARGE_MESSAGE } from '../payments/amounts.ts';
import { checkBatchNetworks } from '../payments/calldata/batch.ts';
import { type NewRequest, requestValues } from '../requests/requests.ts';
import { ulid } from '../ulid.ts';

/** A link lives this long unless paid first (decisions.md). */
export const LINK_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
export const DEFAULT_REDIRECT_LABEL = 'Go Back and Close';

export const REDIRECT_URL_MESSAGE =
  'redirectUrl must be a safe http(s) URL with no script/HTML payload';
export const REDIRECT_LABEL_WITHOUT_URL_MESSAGE =
  'redirectLabel cannot be provided without redirectUrl';
export const REDIRECT_LABEL_MESSAGE =
  'redirectLabel must be 1 to 255 characters without < > & " \' or backtick';

const FIAT_CODES = 'USD, EUR, GBP, CNY, JPY';
const UNSAFE_URL_CHARACTERS = /[<>"'`\s\\]/;
const UNSAFE_LABEL_CHARACTERS = /[<>&"'`]/;

export interface CreateLinkInput {
  readonly requests: readonly {
    readonly destinationId?: string | undefined;
    readonly amount: string;
    /** Ours: a fiat code; the amount is then in that fiat, paid in the destination's token. */
    readonly invoiceCurrency?: string | undefined;
  }[];
  readonly reference?: string | undefined;
  readonly payerIdentifier?: string | undefined;
  readonly redirectUrl?: string | undefined;
  readonly redirectLabel?: string | undefined;
}

export interface CreatedLink {
  readonly token: string;
  readonly securePaymentUrl: string;
  readonly requestIds: string[];
}

export interface LinkCaller {
  readonly accountId: string;
  readonly clientId: ClientIdRow | null;
  /** An orchestrator acting for the client ID (`x-orchestrator-key` + `x-client-id`). */
  readonly orchestrated: boolean;
  /** The browser origin the client ID called from, if it is a browser's. */
  readonly origin: string | null;
}

export const UNBOUND_ORCHESTRATED_MESSAGE =
  'A client ID used with an orchestrator key needs a bound payee destination';

export function securePaymentUrl(payUrl: string, token: string): string {
  return `${payUrl}/?token=${token}`;
}

/** Checks the redirect pair; throws 400 with the reference API's exact messages. */
export function checkRedirect(
  redirectUrl: string | undefined,
  redirectLabel: string | undefined,
): void {
  if (redirectUrl !== undefined) {
    let url: URL | null = null;
    try {
      url = new URL(redirectUrl);
    } catch {
      url = null;
    }
    if (
      !url ||
      (url.protocol !== 'https:' && url.protocol !== 'http:') ||
      UNSAFE_URL_CHARACTERS.test(redirectUrl)
    ) {
      throw new AppError('invalid_redirect_url', REDIRECT_URL_MESSAGE);
    }
  }
  if (redirectLabel !== undefined) {
    if (redirectUrl === undefined)
      throw new AppError('redirect_label_without_url', REDIRECT_LABEL_WITHOUT_URL_MESSAGE);
    if (
      redirectLabel.length < 1 ||
      redirectLabel.length > 255 ||
      UNSAFE_LABEL_CHARACTERS.test(redirectLabel)
    ) {
      throw new AppError('invalid_redirect_label', REDIRECT_LABEL_MESSAGE);
    }
  }
}

/**
 * `POST /v2/secure-payments`: resolves each item's destination (the client ID's bound one, else
 * the inline `destinationId`, which must be an active destination of the caller's account),
 * checks amounts against the token's decimals and the network rules, then writes the link and
 * its requests in one transaction.
 */
export async function createSecurePayment(
  deps: { db: Database; clock: Clock; chains: ChainRegistry; payUrl: string },
  caller: LinkCaller,
  input: CreateLinkInput,
): Promise<CreatedLink> {
  checkRedirect(input.redirectUrl, input.redirectLabel);
  const bound = await boundDestination(deps.db, caller.clientId);
  // An orchestrator is another party than the account: it may only ever have the account paid
  // where the account bound the client ID, never at a destination of its choosing.
  if (caller.orchestrated && bound === null) {
    throw new AppError('client_id_not_bound', UNBOUND_ORCHESTRATED_MESSAGE);
  }

  const errors: FieldError[] = [];
  const items: {
    destination: DestinationRow;
    target: ResolvedTarget;
    invoice: Currency;
    amount: bigint;
  }[] = [];
  for (const [index, item] of input.requests.entries()) {
    const { destination, target } = await itemDestination(
      deps,
      caller,
      bound,
      item.destinationId,
      index,
    );
    const invoice = invoiceCurrencyOf(deps.chains, item.invoiceCurrency, target.currency, index);
    if (!invoice.ok) {
      errors.push(invoice.error);
      continue;
    }
    // The amount is written in the invoice currency: cents of a USD link, yen of a JPY one.
    const amount = parseAmount(item.amount, invoice.currency.decimals);
    if (!amount.ok) {
      errors.push({ field: `requests[${index}].amount`, message: amount.message });
      continue;
    }
    items.push({ destination, target, invoice: invoice.currency, amount: amount.value });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  checkBatchNetworks(items.map((item) => item.destination.network));
  // A batch pays each token's total in one approval and one transfer: it must fit a uint256.
  const totals = new Map<string, bigint>();
  for (const { destination, amount, invoice } of items) {
    // Fiat amounts are bounded when converted (the batch's maxToSpend), not summed as tokens.
    if (isFiat(invoice)) continue;
    const key = destination.tokenAddress.toLowerCase();
    totals.set(key, (totals.get(key) ?? 0n) + amount);
  }
  if ([...totals.values()].some((total) => total > MAX_BASE_UNITS)) {
    throw new ValidationError([{ field: 'requests', message: TOTAL_TOO_LARGE_MESSAGE }]);
  }

  const now = deps.clock.now();
  const token = ulid(now.getTime());
  const network = items[0]?.destination.network ?? '';
  const { requestIds } = await insertLinkWithRequests(
    deps.db,
    {
      token,
      caller,
      network,
      now,
      reference: input.reference ?? null,
      payerIdentifier: input.payerIdentifier ?? null,
      redirectUrl: input.redirectUrl ?? null,
      redirectLabel: input.redirectLabel ?? null,
    },
    items.map(({ destination, target, invoice, amount }, position) => {
      return {
        accountId: caller.accountId,
        clientIdId: caller.clientId?.id ?? null,
        position,
        network: target.network,
        invoiceCurrency: invoice,
        paymentCurrency: target.currency,
        expectedAmount: amount,
        payee: destination.walletAddress,
        destinationRowId: destination.id,
        reference: input.reference ?? null,
        origin: caller.origin,
      };
    }),
  );
  return { token, securePaymentUrl: securePaymentUrl(deps.payUrl, token), requestIds };
}

/**
 * What an item's amount counts in: the destination's token, or the fiat the item names, which
 * needs a Chainlink feed path to that token on its network (as `POST /v2/request` checks).
 */
function invoiceCurrencyOf(
  chains: ChainRegistry,
  code: string | undefined,
  token: Currency,
  index: number,
): { ok: true; currency: Currency } | { ok: false; error: FieldError } {
  if (code === undefined) return { ok: true, currency: token };
  const fiat = chains.currency(code);
  if (!fiat || !isFiat(fiat)) {
    return {
      ok: false,
      error: {
        field: `requests[${index}].invoiceCurrency`,
        message: `is not a fiat code (${FIAT_CODES})`,
      },
    };
  }
  if (token.network === 'fiat' || !conversionPath(chains, token.network, fiat, token)) {
    throw new AppError(
      'conversion_route_unavailable',
      `No conversion route from ${fiat.id} to ${token.id} on ${token.network}`,
    );
  }
  return { ok: true, currency: fiat };
}

async function itemDestination(
  deps: { db: Database; chains: ChainRegistry },
  caller: LinkCaller,
  bound: DestinationRow | null,
  destinationId: string | undefined,
  index: number,
): Promise<{ destination: DestinationRow; target: ResolvedTarget }> {
  if (bound) {
    const target = parseTarget(deps.chains, bound.destinationId);
    // Compare canonical forms: the bound id written in another case is still the bound id.
    if (
      destinationId !== undefined &&
      parseTarget(deps.chains, destinationId).id.value !== bound.destinationId
    ) {
      throw new AppError('destination_mismatch', DESTINATION_MISMATCH_MESSAGE);
    }
    if (!bound.active) {
      throw new AppError(
        'destination_inactive',
        'The payee destination bound to this client ID is inactive',
      );
    }
    return { destination: bound, target };
  }
  if (destinationId === undefined) {
    throw new ValidationError([
      {
        field: `requests[${index}].destinationId`,
        message: 'is required when the client ID has no bound payee destination',
      },
    ]);
  }
  // Parsed once: its canonical form finds the row, which therefore has this very target.
  const target = parseTarget(deps.chains, destinationId);
  const row = await findCanonicalDestination(deps.db, caller.accountId, target.id.value);
  if (!row?.active) {
    throw new AppError(
      'unknown_destination',
      `No active payee destination ${destinationId} in this account`,
    );
  }
  return { destination: row, target };
}

export interface NewLink {
  readonly token: string;
  readonly caller: LinkCaller;
  readonly network: string;
  readonly now: Date;
  /** A payout's creator: the only wallet the link may be paid from. */
  readonly creatorWallet?: string | null;
  readonly reference?: string | null;
  readonly payerIdentifier?: string | null;
  readonly redirectUrl?: string | null;
  readonly redirectLabel?: string | null;
  /** A multicall parent: its requested kind and its expiry (its earliest child's). */
  readonly multicall?: {
    readonly executionKind: 'evm_same_chain' | 'evm_cross_chain' | 'tron_batch' | null;
    readonly expiresAt: Date;
  };
}

/**
 * Writes a link that lives `LINK_LIFETIME_MS` from `now` (a multicall parent: as long as its
 * first child to expire); its requests come after it.
 */
export async function insertLink(db: Database, link: NewLink): Promise<{ id: string }> {
  const [row] = await db
    .insert(securePayments)
    .values(linkValues(link))
    .returning({ id: securePayments.id });
  if (!row) throw new Error('secure payment insert returned no row');
  return row;
}

/** The row of a new link, with its id when the caller names it (to write its requests along). */
export function linkValues(link: NewLink, id?: string) {
  return {
    ...(id !== undefined && { id }),
    token: link.token,
    accountId: link.caller.accountId,
    clientIdId: link.caller.clientId?.id ?? null,
    payout: link.creatorWallet != null,
    creatorWallet: link.creatorWallet ?? null,
    network: link.network,
    reference: link.reference ?? null,
    payerIdentifier: link.payerIdentifier ?? null,
    redirectUrl: link.redirectUrl ?? null,
    redirectLabel: link.redirectLabel ?? null,
    multicall: link.multicall !== undefined,
    executionKind: link.multicall?.executionKind ?? null,
    expiresAt: link.multicall?.expiresAt ?? new Date(link.now.getTime() + LINK_LIFETIME_MS),
    createdAt: link.now,
  } satisfies typeof securePayments.$inferInsert;
}

/** Links with at most this many requests are written by a statement prepared for their count. */
const MAX_PREPARED_REQUESTS = 8;

type Row = Record<string, unknown>;

/**
 * The statement that writes a link and `count` requests (a data-modifying CTE), with a
 * placeholder per value, built once per database and count and prepared under its own name:
 * building it on every call was a quarter of the CPU of `POST /v2/secure-payments`. The
 * placeholders are named after the columns of the rows `linkValues` and `requestValues` make,
 * whose shapes are fixed.
 */
const linkInserts = preparedPerDatabase(
  (db) => new Map<number, ReturnType<typeof prepareLinkInsert>>(),
);

function prepareLinkInsert(db: Database, count: number, link: Row, request: Row) {
  const placeholders = (row: Row, prefix: string) =>
    Object.fromEntries(Object.keys(row).map((key) => [key, sql.placeholder(`${prefix}${key}`)]));
  const linkRow = db
    .$with('link')
    .as(db.insert(securePayments).values(placeholders(link, 'link_') as never));
  const rows = Array.from({ length: count }, (_, i) => placeholders(request, `r${i}_`));
  return db
    .with(linkRow)
    .insert(requests)
    .values(rows as never)
    .prepare(`insert_link_with_${count}_requests`);
}

/**
 * Writes a link and its requests in one statement (a data-modifying CTE): one round trip
 * instead of a transaction's four, and as atomic, since a statement is all or nothing.
 */
export async function insertLinkWithRequests(
  db: Database,
  link: NewLink,
  items: readonly Omit<NewRequest, 'securePaymentId'>[],
): Promise<{ id: string; requestIds: string[] }> {
  const id = randomUUID();
  const linkRow: Row = linkValues(link, id);
  const values = items.map((item) => requestValues({ ...item, securePaymentId: id }));
  const [first] = values;
  if (first !== undefined && values.length <= MAX_PREPARED_REQUESTS) {
    const prepared = linkInserts(db);
    let insert = prepared.get(values.length);
    if (insert === undefined) {
      insert = prepareLinkInsert(db, values.length, linkRow, first);
      prepared.set(values.length, insert);
    }
    const params: Row = {};
    for (const key in linkRow) params[`link_${key}`] = linkRow[key];
    values.forEach((value: Row, i) => {
      for (const key in value) params[`r${i}_${key}`] = value[key];
    });
    await insert.execute(params);
  } else {
    const insertLinkRow = db.insert(securePayments).values(linkValues(link, id));
    const insertRequestRows = db.insert(requests).values(values);
    await db.execute(sql`with link as (${insertLinkRow.getSQL()}) ${insertRequestRows.getSQL()}`);
  }
  return { id, requestIds: values.map((value) => value.requestId) };
}
