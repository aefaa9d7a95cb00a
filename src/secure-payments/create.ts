import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { ProtocolFeeConfig } from '../config/protocol-fee.ts';
import type { Database } from '../db/client.ts';
import {
  boundDestination,
  type DestinationRow,
  findCanonicalDestination,
} from '../destinations/destinations.ts';
import { insertFeeLegs, payeeBorneTotal, plannedFeeLegs } from '../fees/legs.ts';
import { type KeyClaim, KeyTaken } from '../idempotency/records.ts';
import { resolveLinkScreening } from '../screening/link-policy.ts';
import { insertLinkWithRequests } from './insert-link.ts';
import {
  type CreatedLink,
  type CreateLinkInput,
  type LinkCaller,
  requestOwnerOf,
} from './link-caller.ts';
import { linkFeePlan } from './link-fee-plan.ts';
import { writeLink } from './link-group.ts';
import { type CheckedItem, checkItems, type ParsedItem } from './link-items.ts';
import { linkKeyHeld, releaseLinkKeys } from './link-keys.ts';
import { mintLink } from './mint-link.ts';
import { withResolvedDestinations } from './resolve-destinations.ts';

export const DEFAULT_REDIRECT_LABEL = 'Go Back and Close';

export const REDIRECT_URL_MESSAGE =
  'redirectUrl must be a safe http(s) URL with no script/HTML payload';
export const REDIRECT_LABEL_WITHOUT_URL_MESSAGE =
  'redirectLabel cannot be provided without redirectUrl';
export const REDIRECT_LABEL_MESSAGE =
  'redirectLabel must be 1 to 255 characters without < > & " \' or backtick';

const UNSAFE_URL_CHARACTERS = /[<>"'`\s\\]/;
const UNSAFE_LABEL_CHARACTERS = /[<>&"'`]/;

export const UNBOUND_ORCHESTRATED_MESSAGE =
  'A client ID used with an orchestrator key needs a bound payee destination';

/**
 * Checks the redirect pair, throwing 400 with the reference API's exact messages; the pair as
 * the link stores it.
 */
export function checkRedirect(input: {
  readonly redirectUrl?: string | undefined;
  readonly redirectLabel?: string | undefined;
}): { readonly redirectUrl: string | null; readonly redirectLabel: string | null } {
  const { redirectUrl, redirectLabel } = input;
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
  return { redirectUrl: redirectUrl ?? null, redirectLabel: redirectLabel ?? null };
}

/**
 * `POST /v2/secure-payments`: resolves each item's destination (the client ID's bound one, else
 * the inline `destinationId`, which must be an active destination of the caller's account),
 * checks amounts against the token's decimals and the network rules, then writes the link and
 * its requests in one statement, which also checks that each destination is still active.
 * The link captures its fee plan (`link-fee-plan.ts`), answered with it. With `claim`, the
 * link keeps the request's `Idempotency-Key` (link-keys.ts): `KeyTaken`, nothing written, when
 * another request holds it.
 */
export async function createSecurePayment(
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    payUrl: string;
    protocolFee: ProtocolFeeConfig | null;
  },
  caller: LinkCaller,
  input: CreateLinkInput,
  claim?: KeyClaim,
): Promise<CreatedLink> {
  const redirect = checkRedirect(input);
  const bound = await boundDestination(deps.db, caller.clientId);
  // An orchestrator is another party than the account: it may only ever have the account paid
  // where the account bound the client ID, never at a destination of its choosing.
  if (caller.orchestrated && bound === null) {
    throw new AppError('client_id_not_bound', UNBOUND_ORCHESTRATED_MESSAGE);
  }

  // Items that name their payee and token instead of a destination (the integration guide's
  // call) get the account's one destination for them (the bound one when it is that). Not
  // under an orchestrator, which may only have the account paid where it is bound.
  const resolved = caller.orchestrated
    ? input
    : await withResolvedDestinations(deps, caller.accountId, bound, input);

  // Each item's destination, as parsed so far: if a check below refuses the link, a destination
  // that is missing from the account is named first, as when each was looked up before the rest.
  const parsed: ParsedItem[] = [];
  let items: CheckedItem[];
  try {
    items = checkItems(deps.chains, { bound, boundOnly: caller.orchestrated }, resolved, parsed);
  } catch (error) {
    if (error instanceof AppError) {
      throw (await firstMissingDestination(deps.db, caller.accountId, inline(parsed))) ?? error;
    }
    throw error;
  }

  const feePlan = await linkFeePlan(deps, caller, items);
  // A plan is for a link of one request (linkFeePlan): its fees are that request's legs.
  const legs = items[0] ? plannedFeeLegs(feePlan, items[0].target.currency) : [];
  const payeeBorneFees = payeeBorneTotal(legs);
  const { screening, fromDestination } = await resolveLinkScreening(deps.db, {
    clientIdId: caller.clientId?.id ?? null,
    destinationId: items[0]?.target.id.value ?? null,
    requested: input.accessPolicy,
  });
  const minted = await mintLink(deps, caller, async (draft) => {
    const link = {
      ...draft,
      network: items[0]?.target.network.id ?? '',
      reference: input.reference ?? null,
      payerIdentifier: input.payerIdentifier ?? null,
      ...redirect,
      feePlan,
      screening,
      screeningFromDestination: fromDestination,
      idempotency: claim
        ? { scope: claim.row.scope, key: claim.row.key, hash: claim.row.request_hash }
        : null,
    };
    // A destination id names its wallet, chain and token: the parsed id says what its row says.
    const linkItems = items.map(({ target, invoice, amount }, position) => ({
      ...requestOwnerOf(caller),
      position,
      network: target.network,
      invoiceCurrency: invoice,
      paymentCurrency: target.currency,
      expectedAmount: amount,
      payee: target.id.walletAddress,
      destinationId: target.id.value,
      reference: input.reference ?? null,
      payeeBorneFees,
    }));
    // A link without fee legs is one statement, written with the links other callers make at
    // the same moment (link-group.ts); the legs are written with their link or not at all.
    // With a key, the link keeps it, and is not written while another request's holds it.
    const write = () =>
      legs.length === 0
        ? writeLink(deps.db, link, linkItems)
        : deps.db.transaction(async (tx) => {
            const one = await insertLinkWithRequests(tx, link, linkItems);
            const [requestId] = one?.requestIds ?? [];
            const [first] = items;
            if (requestId !== undefined && first !== undefined)
              await insertFeeLegs(
                tx,
                { requestId, network: first.target.network.id, currency: first.target.currency.id },
                legs,
              );
            return one;
          });
    let written = await write();
    const key = link.idempotency;
    // A key a link kept past its 24 hours is let go (here, or by whoever got there first), and
    // the link written again: only a key still held, or a destination missing, refuses it.
    if (written === null && key) {
      await releaseLinkKeys(deps.db, draft.now, key);
      written = await write();
    }
    if (written !== null) claim?.claimed();
    else if (key && (await linkKeyHeld(deps.db, key, draft.now))) throw new KeyTaken();
    else throw await missingDestination(deps.db, caller, bound, items);
    // (A bound client ID's lines may name other destinations of its account: the write checks
    // those as it checks an unbound caller's.)
    return written.requestIds;
  });
  return { ...minted, feePlan };
}

/** The items that name their own destination (not the client ID's bound one). */
function inline(items: readonly ParsedItem[]): ParsedItem[] {
  return items.filter((item) => item.named);
}

/** The first of the items whose destination is not an active one of the account, as a 400. */
async function firstMissingDestination(
  db: Database,
  accountId: string,
  items: readonly ParsedItem[],
): Promise<AppError | null> {
  for (const { target, sent } of items) {
    const row = await findCanonicalDestination(db, accountId, target.id.value);
    if (!row?.active) return unknownDestination(sent);
  }
  return null;
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
  items: readonly ParsedItem[],
): Promise<AppError> {
  const missing = await firstMissingDestination(db, caller.accountId, inline(items));
  if (missing) return missing;
  if (bound) {
    return new AppError(
      'destination_inactive',
      'The payee destination bound to this client ID is inactive',
    );
  }
  return unknownDestination(items[0]?.sent ?? '');
}

function unknownDestination(destinationId: string): AppError {
  return new AppError(
    'unknown_destination',
    `No active payee destination ${destinationId} in this account`,
  );
}
