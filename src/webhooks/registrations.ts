import { randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { ValidationError } from '../base/errors.ts';
import type { SecretBox } from '../base/secret-box.ts';
import { ulid } from '../base/ulid.ts';
import type { WebhookConfig } from '../config/config.ts';
import type { Database } from '../db/client.ts';
import { clientIds, webhooks } from '../db/schema.ts';
import type { CallerScope } from '../http/principal.ts';
import { ownedBy, type WebhookRow } from './ownership.ts';
import { type RetryPolicyInput, retryColumns, retryPolicyOf } from './retry-policy.ts';
import { checkWebhookUrl } from './url-policy.ts';

/**
 * Registering and managing endpoints. The signing secret is shown once, at creation, and
 * stored sealed with SECRET_KEY; losing it means delete and register again.
 */

const SECRET_PREFIX = 'whsec_';
const MAX_WEBHOOKS_PER_OWNER = 20;

/** Characters of the secret's end shown in its masked form. */
const SECRET_HINT_CHARS = 4;

/**
 * The secret as lists show it after creation: masked, only its last characters in clear, so an
 * operator can tell which secret a receiver holds without it ever being shown again (the
 * Auth API's list item has a `secret` field; a receiver's secret is never in it). A secret that
 * no longer opens (SECRET_KEY changed, or the sealed value was damaged) is masked without the
 * hint: one such endpoint must not fail the list, nor a change to it that is already written.
 */
function maskSecret(secretBox: SecretBox, row: WebhookRow): string {
  let hint = '';
  try {
    hint = secretBox.open(row.secretSealed, row.id).slice(-SECRET_HINT_CHARS);
  } catch {
    // Unreadable: the dispatcher reports it on each attempt (`not sent: …`); here, no hint.
  }
  return `${SECRET_PREFIX}${'*'.repeat(8)}${hint}`;
}

/** An endpoint as the list and the switch answer it (schemas.ts `WebhookSchema`). */
function webhookBody(
  deps: { readonly secretBox: SecretBox },
  row: WebhookRow,
  clientId: string | null,
) {
  return {
    id: row.id,
    url: row.url,
    secret: maskSecret(deps.secretBox, row),
    isActive: row.active,
    active: row.active,
    clientId,
    retryPolicy: retryPolicyOf(row),
    createdAt: row.createdAt.toISOString(),
  };
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
  retryPolicy: RetryPolicyInput = {},
): Promise<{ id: string; secret: string }> {
  const check = checkWebhookUrl(url, deps.config.allowLocal);
  if (!check.ok) throw new ValidationError([{ field: 'url', message: check.reason }]);
  const retry = retryColumns(retryPolicy);
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
    ...retry,
    createdAt: now,
    updatedAt: now,
  });
  return { id, secret };
}

/** The endpoints `scope` owns, oldest first, each with the public id of its client ID. */
export async function listWebhooks(
  deps: { readonly db: Database; readonly secretBox: SecretBox },
  scope: CallerScope,
) {
  const rows = await deps.db
    .select({ webhook: webhooks, clientId: clientIds.clientId })
    .from(webhooks)
    .leftJoin(clientIds, eq(clientIds.id, webhooks.clientIdId))
    .where(ownedBy(scope))
    .orderBy(webhooks.createdAt, webhooks.id);
  return rows.map((row) => webhookBody(deps, row.webhook, row.clientId));
}

/**
 * Switches the endpoint on or off; with no `active`, flips it (the Auth API 0.14.0 toggle, which
 * has no body), in the statement itself, so two toggles at once flip it twice, not once.
 */
export async function setWebhookActive(
  deps: { readonly db: Database; readonly clock: Clock; readonly secretBox: SecretBox },
  row: WebhookRow,
  active: boolean | undefined,
) {
  const [updated] = await deps.db
    .update(webhooks)
    .set({ active: active ?? sql`not ${webhooks.active}`, updatedAt: deps.clock.now() })
    .where(eq(webhooks.id, row.id))
    .returning();
  return webhookBody(deps, updated ?? row, await publicClientId(deps.db, row.clientIdId));
}

/** Sets the endpoint's retry policy: fields sent replace, null resets, absent ones stay. */
export async function setRetryPolicy(
  deps: { readonly db: Database; readonly clock: Clock; readonly secretBox: SecretBox },
  row: WebhookRow,
  input: RetryPolicyInput,
) {
  const [updated] = await deps.db
    .update(webhooks)
    .set({ ...retryColumns(input, row), updatedAt: deps.clock.now() })
    .where(eq(webhooks.id, row.id))
    .returning();
  return webhookBody(deps, updated ?? row, await publicClientId(deps.db, row.clientIdId));
}

async function publicClientId(db: Database, clientIdId: string | null): Promise<string | null> {
  if (clientIdId === null) return null;
  const [row] = await db
    .select({ clientId: clientIds.clientId })
    .from(clientIds)
    .where(eq(clientIds.id, clientIdId));
  return row?.clientId ?? null;
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
