import { and, eq, isNull } from 'drizzle-orm';
import { findClientId } from '../auth/client-ids.ts';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { type BrandingRow, brandings } from '../db/schema.ts';
import { isLinked } from '../orchestrators/orchestrators.ts';
import type { BrandingFields } from './fields.ts';

/** A branding as the orchestrator routes answer it: unset fields are null. */
export interface BrandingView {
  readonly id: string;
  readonly orchestratorId: string;
  readonly clientIdId: string | null;
  readonly logoPath: string | null;
  readonly pageBackgroundColor: string | null;
  readonly cardBackgroundColor: string | null;
  readonly primaryActionColor: string | null;
  readonly primaryTextColor: string | null;
  readonly secondaryTextColor: string | null;
  readonly termsPath: string | null;
  readonly privacyPath: string | null;
  readonly displayRequestBranding: boolean;
}

function brandingView(row: BrandingRow): BrandingView {
  return {
    id: row.id,
    orchestratorId: row.orchestratorId,
    clientIdId: row.clientIdId,
    logoPath: row.logoPath,
    pageBackgroundColor: row.pageBackgroundColor,
    cardBackgroundColor: row.cardBackgroundColor,
    primaryActionColor: row.primaryActionColor,
    primaryTextColor: row.primaryTextColor,
    secondaryTextColor: row.secondaryTextColor,
    termsPath: row.termsPath,
    privacyPath: row.privacyPath,
    // Off unless set: an orchestrator's brand replaces the request's own by default.
    displayRequestBranding: row.displayRequestBranding ?? false,
  };
}

/**
 * Which branding a call names: the orchestrator's own (no client ID) or a client ID's, which
 * must be actively linked to the caller. An unknown client ID and another orchestrator's are
 * refused alike (403), so no orchestrator learns which client IDs exist.
 */
export async function brandingLevel(
  db: Database,
  orchestratorId: string,
  clientIdValue: string | undefined,
): Promise<string | null> {
  if (clientIdValue === undefined) return null;
  const clientId = await findClientId(db, clientIdValue);
  if (clientId === null || !(await isLinked(db, orchestratorId, clientId.id))) {
    throw new AppError('client_id_not_linked', 'Client ID is not linked to this orchestrator');
  }
  return clientId.id;
}

function atLevel(orchestratorId: string, clientIdId: string | null) {
  return and(
    eq(brandings.orchestratorId, orchestratorId),
    clientIdId === null ? isNull(brandings.clientIdId) : eq(brandings.clientIdId, clientIdId),
  );
}

/** One branding per level: a second create answers 409 and changes nothing. */
export async function createBranding(
  db: Database,
  orchestratorId: string,
  clientIdId: string | null,
  fields: BrandingFields,
): Promise<BrandingView> {
  const [row] = await db
    .insert(brandings)
    .values({ orchestratorId, clientIdId, ...fields })
    .onConflictDoNothing()
    .returning();
  if (!row) throw exists(clientIdId);
  return brandingView(row);
}

async function findBranding(
  db: Database,
  orchestratorId: string,
  clientIdId: string | null,
): Promise<BrandingRow | null> {
  const [row] = await db.select().from(brandings).where(atLevel(orchestratorId, clientIdId));
  return row ?? null;
}

export async function getBranding(
  db: Database,
  orchestratorId: string,
  clientIdId: string | null,
): Promise<BrandingView> {
  const row = await findBranding(db, orchestratorId, clientIdId);
  if (row === null) throw notFound(clientIdId);
  return brandingView(row);
}

/** Sets the fields sent; the others keep their values (a field cannot be cleared). */
export async function updateBranding(
  db: Database,
  clock: Clock,
  orchestratorId: string,
  clientIdId: string | null,
  fields: BrandingFields,
): Promise<BrandingView> {
  const [row] = await db
    .update(brandings)
    .set({ ...fields, updatedAt: clock.now() })
    .where(atLevel(orchestratorId, clientIdId))
    .returning();
  if (!row) throw notFound(clientIdId);
  return brandingView(row);
}

/** Idempotent: `removed` says whether there was one. */
export async function removeBranding(
  db: Database,
  orchestratorId: string,
  clientIdId: string | null,
): Promise<{ removed: boolean }> {
  const rows = await db
    .delete(brandings)
    .where(atLevel(orchestratorId, clientIdId))
    .returning({ id: brandings.id });
  return { removed: rows.length > 0 };
}

function exists(clientIdId: string | null): AppError {
  return new AppError(
    'branding_exists',
    clientIdId === null
      ? 'This orchestrator has a branding already: change it with PATCH'
      : 'This client ID has a branding already: change it with PATCH',
  );
}

function notFound(clientIdId: string | null): AppError {
  return new AppError(
    'branding_not_found',
    clientIdId === null ? 'This orchestrator has no branding' : 'This client ID has no branding',
  );
}
