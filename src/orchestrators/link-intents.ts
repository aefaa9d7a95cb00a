import { eq } from 'drizzle-orm';
import { checkClientIdFields, settingsOf } from '../auth/client-id-rules.ts';
import {
  digestSecret,
  looksLikeSecret,
  lookupPrefix,
  matchDigest,
  mintSecret,
} from '../auth/credentials.ts';
import type { Clock } from '../base/clock.ts';
import { AppError, ValidationError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import {
  clientIdLinkIntents,
  type LinkIntentRow,
  orchestrators,
  type StoredKytPlan,
} from '../db/schema.ts';
import { checkKytPlan, type KytPlanInput } from './kyt-plans.ts';

/**
 * Link intents (api-facts §11.2): an orchestrator invites a merchant with a single-use URL,
 * valid two days; the merchant opens it, signs in and completes it (complete-link-intent.ts),
 * which creates a client ID of the merchant's linked to the orchestrator.
 */

export const LINK_INTENT_TTL_MS = 2 * 24 * 60 * 60 * 1000;
const LINK_INTENT_TOKEN_PREFIX = 'lki_';
/** Where the page that completes an intent lives, under PAY_URL. */
const INTENT_PAGE_PATH = '/link/';

export interface NewLinkIntent {
  readonly clientIdName: string;
  readonly domains?: readonly string[];
  readonly externalId?: string;
  readonly kyt?: KytPlanInput;
}

/** The reference's intent object. `accessToken` is only known at creation (we keep a digest). */
export interface LinkIntentView {
  readonly id: string;
  readonly orchestratorId: string;
  readonly clientIdName: string;
  readonly allowedDomains: string[];
  readonly externalId: string | null;
  readonly kyt: StoredKytPlan | null;
  readonly used: boolean;
  readonly expiresAt: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

function intentView(row: LinkIntentRow): LinkIntentView {
  return {
    id: row.id,
    orchestratorId: row.orchestratorId,
    clientIdName: row.clientIdName,
    allowedDomains: row.allowedDomains,
    externalId: row.externalId,
    kyt: row.kytPlan,
    used: row.usedAt !== null,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The URL a merchant opens to complete the intent. */
function intentUrl(payUrl: string, token: string): string {
  return `${payUrl}${INTENT_PAGE_PATH}${encodeURIComponent(token)}`;
}

/**
 * A new intent of the orchestrator. The name and domains follow a client ID's own rules (the
 * client ID made on completion takes them), with the body's field names in the errors; every
 * bad field is named in one 400 and nothing is written.
 */
export async function createLinkIntent(
  deps: { readonly db: Database; readonly clock: Clock; readonly payUrl: string },
  orchestratorId: string,
  input: NewLinkIntent,
): Promise<{ url: string; intent: LinkIntentView & { accessToken: string } }> {
  const check = checkClientIdFields(
    { label: input.clientIdName, allowedDomains: input.domains ?? [], ...settingsOf({}) },
    0,
  );
  const errors = check.errors.map((error) => ({
    ...error,
    field: error.field.replace(/^label/, 'clientIdName').replace(/^allowedDomains/, 'domains'),
  }));
  let kyt: StoredKytPlan | null = null;
  if (input.kyt !== undefined) {
    const checked = checkKytPlan(input.kyt, 'kyt.');
    kyt = checked.plan;
    errors.push(...checked.errors);
  }
  if (errors.length > 0) throw new ValidationError(errors);
  const now = deps.clock.now();
  const token = mintSecret(LINK_INTENT_TOKEN_PREFIX);
  const [row] = await deps.db
    .insert(clientIdLinkIntents)
    .values({
      orchestratorId,
      prefix: lookupPrefix(token, LINK_INTENT_TOKEN_PREFIX),
      keyHash: digestSecret(token),
      clientIdName: check.fields.label,
      allowedDomains: [...check.fields.allowedDomains],
      externalId: input.externalId ?? null,
      kytPlan: kyt,
      expiresAt: new Date(now.getTime() + LINK_INTENT_TTL_MS),
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error('link intent insert returned no row');
  return { url: intentUrl(deps.payUrl, token), intent: { ...intentView(row), accessToken: token } };
}

function notFound(): AppError {
  return new AppError('link_intent_not_found', 'Link intent not found');
}

/** The intent of a token, or `link_intent_not_found`; used and expired ones too. */
export async function findLinkIntent(db: Database, token: string): Promise<LinkIntentRow> {
  if (!looksLikeSecret(token, LINK_INTENT_TOKEN_PREFIX)) throw notFound();
  const candidates = await db
    .select()
    .from(clientIdLinkIntents)
    .where(eq(clientIdLinkIntents.prefix, lookupPrefix(token, LINK_INTENT_TOKEN_PREFIX)));
  const match = matchDigest(candidates, token);
  if (!match) throw notFound();
  return match;
}

/** Why an intent can no longer be completed (used first: a used intent's expiry is moot). */
export function refusal(row: LinkIntentRow, now: Date): AppError | null {
  if (row.usedAt !== null) return new AppError('link_intent_used', 'Link intent has been used');
  if (row.expiresAt.getTime() <= now.getTime()) {
    return new AppError('link_intent_expired', 'Link intent has expired');
  }
  return null;
}

/**
 * The orchestrator's own branding of the pages, for the page that completes its intents: the
 * colors always, the asset paths where set. branding/ resolves it; the wiring passes the
 * resolver in (`IntentBrandingOf`), since branding/ reads orchestrators/, not the reverse.
 */
interface IntentBranding {
  readonly logoPath?: string;
  readonly pageBackgroundColor: string;
  readonly cardBackgroundColor: string;
  readonly primaryActionColor: string;
  readonly primaryTextColor: string;
  readonly secondaryTextColor: string;
  readonly termsPath?: string;
  readonly privacyPath?: string;
}

export type IntentBrandingOf = (orchestratorId: string) => Promise<IntentBranding | null>;

/** Only the fields the page wears: the resolver's answer may carry more. */
function pageBranding(branding: IntentBranding): IntentBranding {
  const { logoPath, termsPath, privacyPath } = branding;
  return {
    ...(logoPath !== undefined && { logoPath }),
    pageBackgroundColor: branding.pageBackgroundColor,
    cardBackgroundColor: branding.cardBackgroundColor,
    primaryActionColor: branding.primaryActionColor,
    primaryTextColor: branding.primaryTextColor,
    secondaryTextColor: branding.secondaryTextColor,
    ...(termsPath !== undefined && { termsPath }),
    ...(privacyPath !== undefined && { privacyPath }),
  };
}

/** What the merchant's page shows before completing: whom it links to, under what name. */
export interface IntentFacts {
  readonly intent: {
    readonly id: string;
    readonly clientIdName: string;
    readonly allowedDomains: string[];
    readonly externalId: string | null;
    readonly kyt: StoredKytPlan | null;
    readonly expiresAt: string;
  };
  readonly orchestrator: { readonly id: string; readonly name: string };
  /** The orchestrator's own branding; null when it has none (the page keeps its defaults). */
  readonly branding: IntentBranding | null;
}

/** `GET /v1/client-id-links/intents/{token}`: an intent that can still be completed, or why not. */
export async function validateLinkIntent(
  deps: { readonly db: Database; readonly clock: Clock; readonly brandingOf: IntentBrandingOf },
  token: string,
): Promise<IntentFacts> {
  const { db } = deps;
  const row = await findLinkIntent(db, token);
  const refused = refusal(row, deps.clock.now());
  if (refused) throw refused;
  const [[orchestrator], branding] = await Promise.all([
    db
      .select({ name: orchestrators.name })
      .from(orchestrators)
      .where(eq(orchestrators.id, row.orchestratorId)),
    deps.brandingOf(row.orchestratorId),
  ]);
  return {
    intent: {
      id: row.id,
      clientIdName: row.clientIdName,
      allowedDomains: row.allowedDomains,
      externalId: row.externalId,
      kyt: row.kytPlan,
      expiresAt: row.expiresAt.toISOString(),
    },
    orchestrator: { id: row.orchestratorId, name: orchestrator?.name ?? '' },
    branding: branding && pageBranding(branding),
  };
}
