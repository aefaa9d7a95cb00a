import { and, eq, isNull, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { type BrandingRow, brandings, orchestratorClientLinks } from '../db/schema.ts';
import { DEFAULT_COLORS } from './fields.ts';

/**
 * A link's branding as `GET /v2/secure-payments/{token}` gives it (Request API 0.13.0's
 * `branding` object): every color resolved, the paths only where set.
 */
export interface ResolvedBranding {
  readonly id: string;
  readonly clientIdId?: string;
  readonly orchestratorId: string;
  readonly logoPath?: string;
  readonly pageBackgroundColor: string;
  readonly cardBackgroundColor: string;
  readonly primaryActionColor: string;
  readonly primaryTextColor: string;
  readonly secondaryTextColor: string;
  readonly termsPath?: string;
  readonly privacyPath?: string;
  readonly displayRequestBranding: boolean;
}

/**
 * The branding of a link made with this client ID (row id): the client ID's own row, else its
 * orchestrator's, else none (null: the page's defaults). A client ID's row stands alone: a
 * field it leaves unset takes the page's default, not the orchestrator's (api-facts §11.4).
 * Only an active link to an orchestrator brands; a link made without a client ID has none.
 */
export async function resolveLinkBranding(
  db: Database,
  clientIdId: string | null,
): Promise<ResolvedBranding | null> {
  if (clientIdId === null) return null;
  // One round trip: the client ID's active link, and its own row before its orchestrator's.
  const [found] = await db
    .select({ branding: brandings })
    .from(orchestratorClientLinks)
    .innerJoin(
      brandings,
      and(
        eq(brandings.orchestratorId, orchestratorClientLinks.orchestratorId),
        or(eq(brandings.clientIdId, clientIdId), isNull(brandings.clientIdId)),
      ),
    )
    .where(
      and(
        eq(orchestratorClientLinks.clientIdId, clientIdId),
        eq(orchestratorClientLinks.status, 'active'),
      ),
    )
    .orderBy(sql`${brandings.clientIdId} nulls last`)
    .limit(1);
  return found ? resolved(found.branding) : null;
}

/**
 * An orchestrator's own branding (its row without a client ID), resolved as a link's is; null
 * when it has none. What the page that completes its link intents wears: the merchant has no
 * client ID of the orchestrator's yet.
 */
export async function resolveOrchestratorBranding(
  db: Database,
  orchestratorId: string,
): Promise<ResolvedBranding | null> {
  const [row] = await db
    .select()
    .from(brandings)
    .where(and(eq(brandings.orchestratorId, orchestratorId), isNull(brandings.clientIdId)))
    .limit(1);
  return row ? resolved(row) : null;
}

function resolved(row: BrandingRow): ResolvedBranding {
  return {
    id: row.id,
    ...(row.clientIdId !== null && { clientIdId: row.clientIdId }),
    orchestratorId: row.orchestratorId,
    ...(row.logoPath !== null && { logoPath: row.logoPath }),
    pageBackgroundColor: row.pageBackgroundColor ?? DEFAULT_COLORS.pageBackgroundColor,
    cardBackgroundColor: row.cardBackgroundColor ?? DEFAULT_COLORS.cardBackgroundColor,
    primaryActionColor: row.primaryActionColor ?? DEFAULT_COLORS.primaryActionColor,
    primaryTextColor: row.primaryTextColor ?? DEFAULT_COLORS.primaryTextColor,
    secondaryTextColor: row.secondaryTextColor ?? DEFAULT_COLORS.secondaryTextColor,
    ...(row.termsPath !== null && { termsPath: row.termsPath }),
    ...(row.privacyPath !== null && { privacyPath: row.privacyPath }),
    displayRequestBranding: row.displayRequestBranding ?? false,
  };
}
