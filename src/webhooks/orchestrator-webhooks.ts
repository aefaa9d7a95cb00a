import { randomBytes } from 'node:crypto';
import { and, count, eq } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { AppError, ValidationError } from '../base/errors.ts';
import type { SecretBox } from '../base/secret-box.ts';
import { ulid } from '../base/ulid.ts';
import type { WebhookConfig } from '../config/config.ts';
import type { Database } from '../db/client.ts';
import { webhooks } from '../db/schema.ts';
import { postSigned } from './attempt.ts';
import { sampleEvent, type TestEventType } from './events.ts';
import { checkWebhookUrl } from './url-policy.ts';

/**
 * An orchestrator's endpoints (`/v2/orchestrators/webhooks`, api-facts §11.6). They are rows of
 * the one `webhooks` table, owned by the orchestrator instead of an account: the outbox, the
 * dispatcher's claims, its retries and signatures serve them unchanged, so an orchestrator
 * event written with `enqueue(db, now, await orchestratorWebhookIds(db, id), events)` in the
 * transaction of the change it reports is delivered as durably as a merchant's. An account's
 * queries all filter on `account_id`, which these rows leave null: no merchant route reaches
 * them, and the routes here filter on `orchestrator_id`.
 */

const SECRET_PREFIX = 'whsec_';
/** Active endpoints per orchestrator (inactive ones stay, as the reference lists them). */
const MAX_ACTIVE_WEBHOOKS = 20;

/** What an orchestrator may ask `POST /v2/orchestrators/webhooks/test` to send. */
export const ORCHESTRATOR_EVENT_TYPES = [
  'client_id.linked',
  'kyt.screening.completed',
  'payment.confirmed',
  'secure_payment.user_event',
] as const satisfies readonly TestEventType[];

type OrchestratorEventType = (typeof ORCHESTRATOR_EVENT_TYPES)[number];

type Row = typeof webhooks.$inferSelect;

/** The reference's webhook object: `{id, url, isActive, createdAt}`. */
export interface OrchestratorWebhook {
  readonly id: string;
  readonly url: string;
  readonly isActive: boolean;
  readonly createdAt: string;
}

function view(row: Row): OrchestratorWebhook {
  return {
    id: row.id,
    url: row.url,
    isActive: row.active,
    createdAt: row.createdAt.toISOString(),
  };
}

interface Deps {
  readonly db: Database;
  readonly clock: Clock;
  readonly secretBox: SecretBox;
  readonly config: WebhookConfig;
}

async function activeCount(db: Database, orchestratorId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(webhooks)
    .where(and(eq(webhooks.orchestratorId, orchestratorId), eq(webhooks.active, true)));
  return row?.n ?? 0;
}

function tooMany(): ValidationError {
  return new ValidationError([
    { field: 'url', message: `at most ${MAX_ACTIVE_WEBHOOKS} active webhooks per orchestrator` },
  ]);
}

/**
 * A new endpoint and its signing secret, shown this once. A URL the orchestrator registered
 * before (active or not) is refused: the unique index decides, so two calls at once register
 * it once.
 */
export async function createOrchestratorWebhook(
  deps: Deps,
  orchestratorId: string,
  url: string,
): Promise<{ webhook: OrchestratorWebhook; secret: string }> {
  const check = checkWebhookUrl(url, deps.config.allowLocal);
  if (!check.ok) throw new ValidationError([{ field: 'url', message: check.reason }]);
  if ((await activeCount(deps.db, orchestratorId)) >= MAX_ACTIVE_WEBHOOKS) throw tooMany();
  const now = deps.clock.now();
  const id = `whk_${ulid(now.getTime())}`;
  const secret = `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
  const [row] = await deps.db
    .insert(webhooks)
    .values({
      id,
      orchestratorId,
      url: check.url,
      secretSealed: deps.secretBox.seal(secret, id),
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) {
    throw new AppError('webhook_url_taken', 'This orchestrator already has a webhook at this URL');
  }
  return { webhook: view(row), secret };
}

/** Every endpoint of the orchestrator, active or not, oldest first. */
export async function listOrchestratorWebhooks(
  db: Database,
  orchestratorId: string,
): Promise<OrchestratorWebhook[]> {
  const rows = await db
    .select()
    .from(webhooks)
    .where(eq(webhooks.orchestratorId, orchestratorId))
    .orderBy(webhooks.createdAt, webhooks.id);
  return rows.map(view);
}

/**
 * Switches the orchestrator's endpoint `id` on or off (idempotent); another's, or an unknown id,
 * is `webhook_not_found`. Deliveries already written to an endpoint switched off fail unsent.
 */
export async function setOrchestratorWebhookActive(
  deps: { readonly db: Database; readonly clock: Clock },
  orchestratorId: string,
  id: string,
  active: boolean,
): Promise<OrchestratorWebhook> {
  const owned = and(eq(webhooks.id, id), eq(webhooks.orchestratorId, orchestratorId));
  const [current] = await deps.db.select().from(webhooks).where(owned);
  if (!current) throw new AppError('webhook_not_found', 'Webhook not found');
  if (current.active === active) return view(current);
  if (active && (await activeCount(deps.db, orchestratorId)) >= MAX_ACTIVE_WEBHOOKS) {
    throw tooMany();
  }
  const [updated] = await deps.db
    .update(webhooks)
    .set({ active, updatedAt: deps.clock.now() })
    .where(owned)
    .returning();
  return view(updated ?? current);
}

/** The active endpoints of the orchestrator: whom its events go to (`enqueue`). */
export async function orchestratorWebhookIds(
  db: Database,
  orchestratorId: string,
): Promise<string[]> {
  const rows = await db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(and(eq(webhooks.orchestratorId, orchestratorId), eq(webhooks.active, true)));
  return rows.map((row) => row.id);
}

function isOrchestratorEventType(value: string): value is OrchestratorEventType {
  return (ORCHESTRATOR_EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * A sample `eventType` (naming the caller as `orchestratorId`), signed and marked as a test,
 * sent once to every active endpoint of the orchestrator, all at once, each within the
 * delivery timeout: the answer counts the endpoints that answered 2xx (`sent`) and the others
 * (`failed`). A probe, not an event: nothing goes through the outbox, nothing is retried.
 */
export async function sendOrchestratorTest(
  deps: Deps,
  orchestratorId: string,
  eventType: string,
): Promise<{ sent: number; failed: number }> {
  if (!isOrchestratorEventType(eventType)) {
    throw new ValidationError([
      { field: 'eventType', message: `must be one of ${ORCHESTRATOR_EVENT_TYPES.join(', ')}` },
    ]);
  }
  const rows = await deps.db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.orchestratorId, orchestratorId), eq(webhooks.active, true)));
  const now = deps.clock.now();
  const body = JSON.stringify({ ...sampleEvent(eventType, now), orchestratorId });
  const outcomes = await Promise.all(
    rows.map(async (row) => {
      try {
        const outcome = await postSigned(deps.config, {
          url: row.url,
          body,
          secret: deps.secretBox.open(row.secretSealed, row.id),
          deliveryId: ulid(now.getTime()),
          retryCount: 0,
          test: true,
          sentAt: now,
        });
        return outcome.kind === 'answered' && outcome.statusCode >= 200 && outcome.statusCode < 300;
      } catch {
        // A secret that no longer opens (SECRET_KEY changed): that endpoint failed.
        return false;
      }
    }),
  );
  const sent = outcomes.filter(Boolean).length;
  return { sent, failed: outcomes.length - sent };
}
