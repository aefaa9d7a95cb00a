import type { FeePlan } from '../base/fee-plan.ts';
import { uuidV7 } from '../base/uuid-v7.ts';
import type { Database } from '../db/client.ts';
import { type LinkScreening, securePayments } from '../db/schema.ts';
import { type NewRequest, requestValues } from '../requests/requests.ts';
import type { LinkCaller } from './link-caller.ts';
import { type LinkRows, type Row, type WrittenLink, writeLinkRows } from './link-write.ts';

/** A link lives this long unless paid first (decisions.md). */
export const LINK_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

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
  /** The fee plan it captures; null: none. */
  readonly feePlan?: FeePlan | null;
  /** Who may pay it and whether payers are screened (src/screening/); null: anyone. */
  readonly screening?: LinkScreening | null;
  /**
   * Its first request's destination screens its payers if that destination's policy says so,
   * as the write reads it (`inheritedScreening`); `screening` is what it stores otherwise.
   */
  readonly screeningFromDestination?: boolean;
  /** A multicall parent: its requested kind and its expiry (its earliest child's). */
  readonly multicall?: {
    readonly executionKind: 'evm_same_chain' | 'evm_cross_chain' | 'tron_batch' | null;
    readonly expiresAt: Date;
  };
  /** The request's `Idempotency-Key`, kept on the link: its write makes it only while free. */
  readonly idempotency?: LinkKey | null;
}

/** An `Idempotency-Key` as a link keeps it: the caller's scope, the key, the request's hash. */
export interface LinkKey {
  readonly scope: string;
  readonly key: string;
  readonly hash: string;
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
function linkValues(link: NewLink, id?: string) {
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
    feePlan: link.feePlan ?? null,
    screening: link.screening ?? null,
    multicall: link.multicall !== undefined,
    executionKind: link.multicall?.executionKind ?? null,
    // Always present, null without a key: every link's row has one shape (link-write.ts).
    idempotencyScope: link.idempotency?.scope ?? null,
    idempotencyKey: link.idempotency?.key ?? null,
    idempotencyHash: link.idempotency?.hash ?? null,
    expiresAt: link.multicall?.expiresAt ?? new Date(link.now.getTime() + LINK_LIFETIME_MS),
    createdAt: link.now,
  } satisfies typeof securePayments.$inferInsert;
}

/** A request of a new link, paid to an active destination of the link's account. */
export type LinkItem = Omit<NewRequest, 'securePaymentId' | 'destinationRowId'> & {
  /** The destination's id in its canonical form (a parsed id's `value`). */
  readonly destinationId: string;
};

/**
 * Writes a link and its requests in one statement, if and only if every destination they pay is
 * an active destination of the caller's account at that moment: one round trip for what was a
 * lookup per destination and then the write. Null when a destination is not (nothing written);
 * the caller finds out which.
 *
 * The statement, prepared once per database and request count:
 *
 *   with dest as (the account's active destinations among those named),
 *        link as (insert the link, only when every named destination is in dest)
 *   insert the requests, each reading its destination's row id from dest, from link
 *
 * so when one destination is missing nothing is written, in the same snapshot that checked it.
 */
export async function insertLinkWithRequests(
  db: Database,
  link: NewLink,
  items: readonly LinkItem[],
): Promise<WrittenLink | null> {
  return writeLinkRows(db, linkRows(link, items));
}

/** The rows of a new link and its requests, ids minted. */
export function linkRows(link: NewLink, items: readonly LinkItem[]): LinkRows {
  // Ids in time order, as the schema's own default makes them (uuid-v7.ts says why).
  const time = link.now.getTime();
  const id = uuidV7(time);
  return {
    id,
    accountId: link.caller.accountId,
    link: linkValues(link, id),
    inheritsScreening: link.screeningFromDestination ?? false,
    requests: items.map(({ destinationId, ...item }) => ({
      values: { id: uuidV7(time), ...requestValues({ ...item, securePaymentId: id }) } as Row,
      destinationId,
    })),
  };
}
