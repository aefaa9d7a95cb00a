import { and, eq } from 'drizzle-orm';
import { AppError, ValidationError } from '../base/errors.ts';
import { addressKey, type ParsedAddress, parseAddress } from '../chains/address.ts';
import { type Currency, isFiat, sameToken } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { payeeDestinations } from '../db/schema.ts';
import type { DestinationRow } from '../destinations/destinations.ts';
import type { CreateLinkInput } from './link-caller.ts';

/**
 * The integration guide's first call names no destination: an item of `POST
 * /v2/secure-payments` sends `payee`, `invoiceCurrency` and `paymentCurrency` instead. Its
 * destination is then the account's one active destination for that payee and token (the
 * reference resolves a link's destination itself too, api-facts §2.3). None, or several, is a
 * 400 that names the choice to make: how to register one, or the destinationIds to pick from.
 */

/** The most candidates an ambiguous item lists. */
const MAX_LISTED = 20;

export const HOW_TO_REGISTER =
  'register one (POST /v1/payee-destination, signed in with the payee’s wallet) or send a destinationId';

/**
 * `input` with a `destinationId` on each item that names none but says whose and which token
 * (`payee`, and `paymentCurrency` or a token `invoiceCurrency`); items that say neither, or
 * name their destination, or say what the client ID's `bound` destination is, are left as they
 * are (`checkItems` decides about them: the bound destination pays them).
 */
export async function withResolvedDestinations(
  deps: { readonly db: Database; readonly chains: ChainRegistry },
  accountId: string,
  bound: DestinationRow | null,
  input: CreateLinkInput,
): Promise<CreateLinkInput> {
  const wanted = input.requests.map((item, index) =>
    item.destinationId === undefined ? wantedOf(deps.chains, item, index) : null,
  );
  if (wanted.every((want) => want === null)) return input;
  const requests = [];
  for (const [index, item] of input.requests.entries()) {
    const want = wanted[index];
    if (!want || (bound && isWanted(deps.chains, bound, want))) {
      requests.push(item);
      continue;
    }
    const found = await candidates(deps, accountId, want);
    const field = `requests[${index}]`;
    if (found.length === 0) {
      throw new AppError(
        'no_matching_destination',
        `No active payee destination of this account matches ${field} (${describe(want)}): ${HOW_TO_REGISTER}`,
        { errors: [{ field: `${field}.destinationId`, message: HOW_TO_REGISTER }] },
      );
    }
    if (found.length > 1) {
      const ids = found.slice(0, MAX_LISTED).map((row) => row.destinationId);
      const choice = `send one of these as its destinationId, or its payee: ${ids.join(', ')}`;
      throw new AppError(
        'ambiguous_destination',
        `Several active payee destinations of this account match ${field} (${describe(want)}): ${choice}`,
        { errors: [{ field: `${field}.destinationId`, message: choice }] },
      );
    }
    requests.push({ ...item, destinationId: found[0]?.destinationId });
  }
  return { ...input, requests };
}

/** What an item without a destination says of it: a payee, a token, or both. */
interface Wanted {
  readonly payee: ParsedAddress | null;
  readonly token: Currency | null;
}

function wantedOf(
  chains: ChainRegistry,
  item: CreateLinkInput['requests'][number],
  index: number,
): Wanted | null {
  const named = item.paymentCurrency ?? item.invoiceCurrency;
  const currency = named === undefined ? undefined : chains.currency(named);
  const token = currency && !isFiat(currency) ? currency : null;
  if (item.paymentCurrency !== undefined && token === null) {
    throw new ValidationError([
      { field: `requests[${index}].paymentCurrency`, message: 'is not a supported token id' },
    ]);
  }
  if (item.payee === undefined) return token === null ? null : { payee: null, token };
  const payee = parseAddress(item.payee, { allowZero: true });
  if (!payee.ok) {
    throw new ValidationError([{ field: `requests[${index}].payee`, message: payee.message }]);
  }
  return { payee, token };
}

/** The account's active destinations that pay that payee, in that token; at most a few. */
async function candidates(
  deps: { readonly db: Database; readonly chains: ChainRegistry },
  accountId: string,
  want: Wanted,
): Promise<DestinationRow[]> {
  // A wallet has one active destination per account; without a payee, those on the token's
  // network (a token is then named) are read, a page of them.
  const rows = await deps.db
    .select()
    .from(payeeDestinations)
    .where(
      and(
        eq(payeeDestinations.accountId, accountId),
        eq(payeeDestinations.active, true),
        want.payee
          ? eq(payeeDestinations.walletAddress, want.payee.address)
          : eq(payeeDestinations.network, want.token?.network ?? ''),
      ),
    )
    .limit(MAX_LISTED + 1);
  return rows.filter((row) => isWanted(deps.chains, row, want));
}

/** Whether a destination pays the payee and the token an item says (each when it says one). */
function isWanted(chains: ChainRegistry, row: DestinationRow, want: Wanted): boolean {
  const token = want.token;
  if (want.payee && !sameWallet(row.walletAddress, want.payee)) return false;
  if (!token) return true;
  const held = tokenOf(chains, row);
  return held !== undefined && sameToken(held, token);
}

function tokenOf(chains: ChainRegistry, row: DestinationRow): Currency | undefined {
  const network = chains.network(row.network);
  return network ? chains.currencyByToken(network.id, row.tokenAddress) : undefined;
}

function sameWallet(stored: string, payee: ParsedAddress): boolean {
  const parsed = parseAddress(stored, { allowZero: true });
  return parsed.ok && addressKey(parsed) === addressKey(payee);
}

function describe(want: Wanted): string {
  return [want.payee && `payee ${want.payee.address}`, want.token?.id].filter(Boolean).join(', ');
}
