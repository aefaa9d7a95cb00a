import { asc, eq, inArray } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { multicallChildren, securePayments } from '../db/schema.ts';
import type { RequestRow } from '../requests/requests.ts';
import { requestsOfLinks } from '../requests/requests.ts';
import { effectiveStatus, type LinkRow } from './link-row.ts';

/**
 * A link that groups other links: a multicall parent (made by payouts, `src/payouts/multicall/`)
 * whose requests are its children's and whose status follows theirs. Loading, listing and
 * paying a link read this, so it is part of the link core; why a child is blocked is named
 * here, how that is told to a caller is the payouts' (api-facts §2.10). Creation and every
 * later read ask the same question of a child; creation adds the reasons that depend on the
 * other children (linkage) and on other parents (processing).
 */

export const BLOCK_REASONS = [
  'not_found',
  'not_owned',
  'not_outgoing',
  'not_single_payment',
  'invalid_child_linkage',
  'already_paid',
  'request_processing',
  'secure_payment_expired',
  'secure_payment_not_pending',
  'compliance_failed',
  'not_payable_child',
] as const;
export type BlockReason = (typeof BLOCK_REASONS)[number];

/** One child link with its request (a single payout link has exactly one). */
export interface Child {
  readonly position: number;
  readonly row: LinkRow;
  readonly requests: readonly RequestRow[];
}

/** Paid: the link completed, or its one request paid in full. */
function isChildPaid(child: Child): boolean {
  return (
    child.row.status === 'completed' ||
    (child.requests.length > 0 && child.requests.every((r) => r.status === 'paid'))
  );
}

/**
 * Why the child cannot be paid now, judged on the child alone, or null when it can. The first
 * reason that applies wins: what it is, then whether it is still owed, then its link's state.
 */
export function childBlock(child: Child, now: Date): BlockReason | null {
  const { row, requests } = child;
  if (row.multicall) return 'not_single_payment';
  if (!row.payout || row.creatorWallet === null) return 'not_outgoing';
  if (isChildPaid(child)) return 'already_paid';
  const status = effectiveStatus(row, now);
  if (status === 'expired') return 'secure_payment_expired';
  if (status === 'invalidated') return 'secure_payment_not_pending';
  if (status === 'compliance_failed') return 'compliance_failed';
  if (requests.length !== 1) return 'not_single_payment';
  return null;
}

/** The children of a parent, in position order, each with its request. */
export async function childrenOf(db: Database, parentId: string): Promise<Child[]> {
  return (await childrenOfParents(db, [parentId])).get(parentId) ?? [];
}

/** The children of several parents (a page of links), by parent id. */
export async function childrenOfParents(
  db: Database,
  parentIds: readonly string[],
): Promise<Map<string, Child[]>> {
  const byParent = new Map<string, Child[]>();
  if (parentIds.length === 0) return byParent;
  const rows = await db
    .select({
      parentId: multicallChildren.parentId,
      position: multicallChildren.position,
      link: securePayments,
    })
    .from(multicallChildren)
    .innerJoin(securePayments, eq(securePayments.id, multicallChildren.childId))
    .where(inArray(multicallChildren.parentId, [...parentIds]))
    .orderBy(asc(multicallChildren.position));
  const linkRequests = await requestsOfLinks(
    db,
    rows.map((r) => r.link.id),
  );
  for (const { parentId, position, link } of rows) {
    const children = byParent.get(parentId) ?? [];
    children.push({
      position,
      row: link,
      requests: linkRequests.filter((r) => r.securePaymentId === link.id),
    });
    byParent.set(parentId, children);
  }
  return byParent;
}

/** Children by link id: a parent's, or those that some other parent still waits on. */
export async function parentsWaitingOn(
  db: Database,
  childIds: readonly string[],
  now: Date,
): Promise<Set<string>> {
  if (childIds.length === 0) return new Set();
  const rows = await db
    .select({ childId: multicallChildren.childId, expiresAt: securePayments.expiresAt })
    .from(multicallChildren)
    .innerJoin(securePayments, eq(securePayments.id, multicallChildren.parentId))
    .where(inArray(multicallChildren.childId, [...childIds]));
  return new Set(rows.filter((r) => r.expiresAt > now).map((r) => r.childId));
}

export type MulticallStatus = 'pending' | 'expired' | 'completed' | 'partially_settled';

/**
 * A parent's status follows its children: completed when every child is paid, expired past the
 * earliest child's expiry, partially settled once some are paid, pending before.
 */
export function multicallStatus(
  parent: LinkRow,
  children: readonly Child[],
  now: Date,
): MulticallStatus {
  const paid = children.filter(isChildPaid).length;
  if (children.length > 0 && paid === children.length) return 'completed';
  if (parent.expiresAt <= now) return 'expired';
  return paid > 0 ? 'partially_settled' : 'pending';
}

/** When a completed parent completed: when its last child did (null while it is not completed). */
export function multicallCompletedAt(status: string, children: readonly Child[]): Date | null {
  if (status !== 'completed') return null;
  const times = children.flatMap((child) => (child.row.completedAt ? [child.row.completedAt] : []));
  return times.length === 0 ? null : new Date(Math.max(...times.map((at) => at.getTime())));
}
