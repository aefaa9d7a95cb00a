import type { ClientIdRow } from '../auth/client-ids.ts';
import { conversionPath } from '../chains/conversion-routes.ts';
import { type Currency, isFiat } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/client.ts';
import {
  boundDestination,
  DESTINATION_MISMATCH_MESSAGE,
  type DestinationRow,
  findCanonicalDestination,
} from '../destinations/destinations.ts';
import { parseTarget, type ResolvedTarget } from '../destinations/target.ts';
import { AppError, type FieldError, ValidationError } from '../errors.ts';
import { MAX_BASE_UNITS, parseAmount, TOTAL_TOO_LARGE_MESSAGE } from '../payments/amounts.ts';
import { checkBatchNetworks } from '../payments/calldata/batch.ts';
import { ulid } from '../ulid.ts';
import { insertLinkWithRequests } from './insert-link.ts';

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
 * its requests in one statement, which also checks that each destination is still active.
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
  const items: { target: ResolvedTarget; sent: string; invoice: Currency; amount: bigint }[] = [];
  for (const [index, item] of input.requests.entries()) {
    const target = itemTarget(deps.chains, bound, item.destinationId, index);
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
    items.push({
      target,
      sent: item.destinationId ?? target.id.value,
      invoice: invoice.currency,
      amount: amount.value,
    });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  checkBatchNetworks(items.map((item) => item.target.network.id));
  // A batch pays each token's total in one approval and one transfer: it must fit a uint256.
  const totals = new Map<string, bigint>();
  for (const { target, amount, invoice } of items) {
    // Fiat amounts are bounded when converted (the batch's maxToSpend), not summed as tokens.
    if (isFiat(invoice)) continue;
    const key = target.id.tokenAddress.toLowerCase();
    totals.set(key, (totals.get(key) ?? 0n) + amount);
  }
  if ([...totals.values()].some((total) => total > MAX_BASE_UNITS)) {
    throw new ValidationError([{ field: 'requests', message: TOTAL_TOO_LARGE_MESSAGE }]);
  }

  const now = deps.clock.now();
  const token = ulid(now.getTime());
  const written = await insertLinkWithRequests(
    deps.db,
    {
      token,
      caller,
      network: items[0]?.target.network.id ?? '',
      now,
      reference: input.reference ?? null,
      payerIdentifier: input.payerIdentifier ?? null,
      redirectUrl: input.redirectUrl ?? null,
      redirectLabel: input.redirectLabel ?? null,
    },
    // A destination id names its wallet, chain and token: the parsed id says what its row says.
    items.map(({ target, invoice, amount }, position) => ({
      accountId: caller.accountId,
      clientIdId: caller.clientId?.id ?? null,
      position,
      network: target.network,
      invoiceCurrency: invoice,
      paymentCurrency: target.currency,
      expectedAmount: amount,
      payee: target.id.walletAddress,
      destinationId: target.id.value,
      reference: input.reference ?? null,
      origin: caller.origin,
    })),
  );
  if (written === null) throw await missingDestination(deps.db, caller, bound, items);
  return {
    token,
    securePaymentUrl: securePaymentUrl(deps.payUrl, token),
    requestIds: written.requestIds,
  };
}

/**
 * Why the write found a destination missing: the bound one was deactivated, or the first item
 * whose destination is not an active one of the account. (Between the write and this look, a
 * destination may have come back; then the first item's is named, still a fair answer.)
 */
async function missingDestination(
  db: Database,
  caller: LinkCaller,
  bound: DestinationRow | null,
  items: readonly { target: ResolvedTarget; sent: string }[],
): Promise<AppError> {
  if (bound) {
    return new AppError(
      'destination_inactive',
      'The payee destination bound to this client ID is inactive',
    );
  }
  for (const { target, sent } of items) {
    const row = await findCanonicalDestination(db, caller.accountId, target.id.value);
    if (!row?.active) return unknownDestination(sent);
  }
  return unknownDestination(items[0]?.sent ?? '');
}

function unknownDestination(destinationId: string): AppError {
  return new AppError(
    'unknown_destination',
    `No active payee destination ${destinationId} in this account`,
  );
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

/**
 * What an item pays: the client ID's bound destination (an inline id must name the same one),
 * or its own `destinationId`. Whether that is an active destination of the account, the write
 * checks.
 */
function itemTarget(
  chains: ChainRegistry,
  bound: DestinationRow | null,
  destinationId: string | undefined,
  index: number,
): ResolvedTarget {
  if (bound) {
    const target = parseTarget(chains, bound.destinationId);
    // Compare canonical forms: the bound id written in another case is still the bound id.
    if (
      destinationId !== undefined &&
      parseTarget(chains, destinationId).id.value !== target.id.value
    ) {
      throw new AppError('destination_mismatch', DESTINATION_MISMATCH_MESSAGE);
    }
    if (!bound.active) {
      throw new AppError(
        'destination_inactive',
        'The payee destination bound to this client ID is inactive',
      );
    }
    return target;
  }
  if (destinationId === undefined) {
    throw new ValidationError([
      {
        field: `requests[${index}].destinationId`,
        message: 'is required when the client ID has no bound payee destination',
      },
    ]);
  }
  return parseTarget(chains, destinationId);
}
