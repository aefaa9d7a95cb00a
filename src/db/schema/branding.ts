import { sql } from 'drizzle-orm';
import { boolean, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.ts';
import { clientIds, orchestrators } from './tenants.ts';

/**
 * An orchestrator's branding of the pay page (api-facts §11.4): one row for the orchestrator
 * itself (`clientIdId` null) and at most one per client ID linked to it. A null field is unset:
 * the page's default stands in (never the orchestrator's row, for a client ID's).
 */
export const brandings = pgTable(
  'brandings',
  {
    id: uuid().primaryKey().defaultRandom(),
    orchestratorId: uuid()
      .notNull()
      .references(() => orchestrators.id),
    clientIdId: uuid().references(() => clientIds.id),
    logoPath: text(),
    pageBackgroundColor: text(),
    cardBackgroundColor: text(),
    primaryActionColor: text(),
    primaryTextColor: text(),
    secondaryTextColor: text(),
    termsPath: text(),
    privacyPath: text(),
    displayRequestBranding: boolean(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [
    uniqueIndex('brandings_one_per_orchestrator')
      .on(t.orchestratorId)
      .where(sql`${t.clientIdId} is null`),
    uniqueIndex('brandings_one_per_client_id')
      .on(t.clientIdId)
      .where(sql`${t.clientIdId} is not null`),
  ],
);

export type BrandingRow = typeof brandings.$inferSelect;
