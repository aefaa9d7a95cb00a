import { randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { ValidationError } from '../base/errors.ts';
import type { SecretBox } from '../base/secret-box.ts';
import { ulid } from '../base/ulid.ts';
import type { WebhookConfig } from '../config/config.ts';
import type { Database } from '../db/client.ts';
import { webhooks } from '../db/schema.ts';
import type { CallerScope } from '../http/principal.ts';
import { ownedBy, type WebhookRow } from './ownership.ts';
import { checkWebhookUrl } from './url-policy.ts';

/**
 * Registering and managing endpoints. The signing secret is shown once, at creation, and
 * stored sealed with SECRET_KEY; losing it means delete and register again.
 */

const SECRET_PREFIX = 'whsec_';
const MAX_WEBHOOKS_PER_OWNER = 20;

function webhookBody(row: WebhookRow) {
  return { id: row.id, url: row.url, active: row.active, createdAt: row.createdAt.toISOString() };
}

export interface CreateWebhookDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly secretBox: SecretBox;
  readonly config: WebhookConfig;
}

/** A new endpoint of `scope` at `url`, and its signing secret (the only time it is shown). */
export async function createWebhook(
  deps: CreateWebhookDeps,
  scope: CallerScope,
  url: string,
): Promise<{ id: string; secret: string }> {
  const check = checkWebhookUrl(url, deps.config.allowLocal);
  if (!check.ok) throw new ValidationError([{ field: 'url', message: check.reason }]);
  const existing = await deps.db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(
      // The limit is per owner: an API key's account-wide endpoints apart from its client IDs'.
      and(ownedBy(scope), scope.clientIdId === null ? isNull(webhooks.clientIdId) : undefined),
    );
  if (existing.length >= MAX_WEBHOOKS_PER_OWNER) {
    throw new ValidationError([
      { field: 'url', message: `at most ${MAX_WEBHOOKS_PER_OWNER} webhooks per client ID` },
    ]);
  }
  const now = deps.clock.now();
  const id = `whk_${ulid(now.getTime())}`;
  const secret = `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
  await deps.db.insert(webhooks).values({
    id,
    accountId: scope.accountId,
    clientIdId: scope.clientIdId,
    url: check.url,
    secretSealed: deps.secretBox.seal(secret, id),
    createdAt: now,
    updatedAt: now,
  });
  return { id, secret };
}

/** The endpoints `scope` owns, oldest first. */
export async function listWebhooks(db: Database, scope: CallerScope) {
  const rows = await db.select().from(webhooks).where(ownedBy(scope)).orderBy(webhooks.createdAt);
  return rows.map(webhookBody);
}

export async function setWebhookActive(
  deps: { readonly db: Database; readonly clock: Clock },
  row: WebhookRow,
  active: boolean,
) {
  const [updated] = await deps.db
    .update(webhooks)
    .set({ active, updatedAt: deps.clock.now() })
    .where(eq(webhooks.id, row.id))
    .returning();
  return webhookBody(updated ?? row);
}

/** Deleted for good: the row stays, inactive and marked, so its delivery log does too. */
export async function deleteWebhook(
  deps: { readonly db: Database; readonly clock: Clock },
  row: WebhookRow,
): Promise<void> {
  const now = deps.clock.now();
  await deps.db
    .update(webhooks)
    .set({ active: false, deletedAt: now, updatedAt: now })
    .where(eq(webhooks.id, row.id));
}
