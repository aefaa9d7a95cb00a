import { and, count, desc, eq } from 'drizzle-orm';
import { accountClientId, findClientId } from '../auth/client-ids.ts';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { clientIds, orchestratorClientLinks, orchestrators } from '../db/schema.ts';

type LinkStatus = 'active' | 'unlinked';

export interface Link {
  readonly clientId: string;
  readonly status: LinkStatus;
}

/**
 * Links a client ID to an orchestrator. A client ID has one orchestrator for life: a link to
 * another one, or a second link after an unlink, is refused. Linking again to the same
 * orchestrator is a no-op that says so.
 */
export async function linkClientId(
  db: Database,
  orchestratorId: string,
  clientIdValue: string,
): Promise<{ link: Link; alreadyLinked: boolean }> {
  const clientId = await findClientId(db, clientIdValue);
  if (clientId === null) throw new AppError('client_id_not_found', 'Client ID not found');
  if (clientId.status === 'revoked') {
    throw new AppError('client_id_revoked', 'Client ID has been revoked');
  }
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(orchestratorClientLinks)
      .values({ orchestratorId, clientIdId: clientId.id })
      .onConflictDoNothing({ target: orchestratorClientLinks.clientIdId })
      .returning({ id: orchestratorClientLinks.id });
    if (inserted.length === 1) {
      return {
        link: { clientId: clientId.clientId, status: 'active' as const },
        alreadyLinked: false,
      };
    }
    const [existing] = await tx
      .select()
      .from(orchestratorClientLinks)
      .where(eq(orchestratorClientLinks.clientIdId, clientId.id));
    if (existing?.orchestratorId === orchestratorId && existing.status === 'active') {
      return {
        link: { clientId: clientId.clientId, status: 'active' as const },
        alreadyLinked: true,
      };
    }
    if (existing?.orchestratorId === orchestratorId) {
      throw new AppError('client_id_unlinked', 'Client ID was unlinked and cannot be linked again');
    }
    throw new AppError('client_id_linked_elsewhere', 'Client ID is linked to another orchestrator');
  });
}

export async function unlinkClientId(
  db: Database,
  clock: Clock,
  orchestratorId: string,
  clientIdValue: string,
): Promise<Link> {
  const clientId = await findClientId(db, clientIdValue);
  const rows =
    clientId === null
      ? []
      : await db
          .update(orchestratorClientLinks)
          .set({ status: 'unlinked', unlinkedAt: clock.now() })
          .where(
            and(
              eq(orchestratorClientLinks.orchestratorId, orchestratorId),
              eq(orchestratorClientLinks.clientIdId, clientId.id),
              eq(orchestratorClientLinks.status, 'active'),
            ),
          )
          .returning({ id: orchestratorClientLinks.id });
  if (clientId === null || rows.length === 0) {
    throw new AppError('link_not_found', 'Client ID is not linked to this orchestrator');
  }
  return { clientId: clientId.clientId, status: 'unlinked' };
}

export async function listLinks(
  db: Database,
  orchestratorId: string,
  page: number,
  limit: number,
): Promise<{ links: Link[]; total: number }> {
  const where = eq(orchestratorClientLinks.orchestratorId, orchestratorId);
  const [rows, totals] = await Promise.all([
    db
      .select({ clientId: clientIds.clientId, status: orchestratorClientLinks.status })
      .from(orchestratorClientLinks)
      .innerJoin(clientIds, eq(clientIds.id, orchestratorClientLinks.clientIdId))
      .where(where)
      .orderBy(desc(orchestratorClientLinks.createdAt), desc(orchestratorClientLinks.id))
      .limit(limit)
      .offset((page - 1) * limit),
    db.select({ total: count() }).from(orchestratorClientLinks).where(where),
  ]);
  return { links: rows, total: totals[0]?.total ?? 0 };
}

/** A link a merchant ended: who it was with, since when, until when. */
export interface EndedLink {
  readonly id: string;
  readonly name: string;
  readonly linkedAt: string;
  readonly unlinkedAt: string;
}

/**
 * The merchant's side of unlinking: the account's client ID (row id) leaves its orchestrator,
 * which can then no longer act for it (its paired calls answer `client_id_not_linked`) nor take
 * fees on links made after. Final, as an orchestrator's own unlink is: the client ID is never
 * linked again.
 */
export async function unlinkOrchestrator(
  db: Database,
  clock: Clock,
  accountId: string,
  clientIdRowId: string,
): Promise<EndedLink> {
  const { row } = await accountClientId(db, accountId, clientIdRowId);
  const [link] = await db
    .update(orchestratorClientLinks)
    .set({ status: 'unlinked', unlinkedAt: clock.now() })
    .where(
      and(
        eq(orchestratorClientLinks.clientIdId, row.id),
        eq(orchestratorClientLinks.status, 'active'),
      ),
    )
    .returning();
  if (!link) {
    throw new AppError('orchestrator_not_linked', 'Client ID is not linked to an orchestrator');
  }
  const [orchestrator] = await db
    .select({ name: orchestrators.name })
    .from(orchestrators)
    .where(eq(orchestrators.id, link.orchestratorId));
  return {
    id: link.orchestratorId,
    name: orchestrator?.name ?? '',
    linkedAt: link.createdAt.toISOString(),
    unlinkedAt: (link.unlinkedAt ?? clock.now()).toISOString(),
  };
}
