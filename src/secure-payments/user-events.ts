import { eq } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { parseDateTime } from '../base/dates.ts';
import { type FieldError, ValidationError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { clientIds } from '../db/schema.ts';
import type { LinkScope } from '../http/principal.ts';
import {
  RATE_LIMIT_WINDOW_MS,
  RateLimitedError,
  type RateLimiter,
  rateLimitHeaders,
} from '../http/rate-limit.ts';
import { orchestratorOfClientId } from '../orchestrators/orchestrators.ts';
import { loadLink } from './links.ts';
import {
  enqueueUserEvent,
  USER_EVENT_PROPERTIES,
  type UserEvent,
  type UserEventProperties,
  type UserEventValue,
  userEventPayload,
} from './user-event-payload.ts';

/**
 * `POST /v2/secure-payments/{token}/events` (0.31.0's `recordUserEvent`; payreq's older
 * `/user-events` is its alias): the pay page reports what the payer did in their wallet; each
 * report becomes one `secure_payment.user_event` for the link's account, carrying only the
 * documented properties.
 */

/** Reports per link per minute: a page reports a handful per payment. */
const USER_EVENTS_PER_MINUTE = 30;

/**
 * A wallet address in clear: EVM (40 hex digits, with or without 0x, not part of a longer hex
 * string such as a hash) or Tron base58.
 */
const EVM_ADDRESS = /(?<![0-9a-fA-F])(?:0[xX])?[0-9a-fA-F]{40}(?![0-9a-fA-F])/;
const TRON_ADDRESS = /(?<![1-9A-HJ-NP-Za-km-z])T[1-9A-HJ-NP-Za-km-z]{33}(?![1-9A-HJ-NP-Za-km-z])/;
export const CLEAR_ADDRESS_MESSAGE =
  'must not hold a wallet address in clear; send its hash as wallet_address_hashed';
const DATE_TIME_MESSAGE =
  'must be an ISO 8601 date-time with a time zone, such as 2026-01-31T00:00:00Z';

export interface UserEventDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly rateLimiter?: RateLimiter | undefined;
  readonly wakeDispatcher?: (() => void) | undefined;
}

export interface UserEventInput {
  readonly userEvent: UserEvent;
  readonly occurredAt?: string | undefined;
  readonly properties?: UserEventProperties | undefined;
}

/** Who reports: the link scope, and the client ID the report came with, if any. */
export interface UserEventReporter {
  readonly scope: LinkScope;
  readonly clientId: string | null;
}

/** The documented properties of a report, in the order the page sent them; the rest dropped. */
function documentedProperties(properties: UserEventProperties): UserEventProperties {
  const documented: ReadonlySet<string> = new Set(USER_EVENT_PROPERTIES);
  return Object.fromEntries(Object.entries(properties).filter(([name]) => documented.has(name)));
}

function holdsClearAddress(value: UserEventValue): boolean {
  const texts = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return texts.some((text) => EVM_ADDRESS.test(text) || TRON_ADDRESS.test(text));
}

/** Checks the report, then queues its event for the link's account, at most 30 a minute. */
export async function recordUserEvent(
  deps: UserEventDeps,
  reporter: UserEventReporter,
  token: string,
  input: UserEventInput,
): Promise<void> {
  const { userEvent, occurredAt } = input;
  const properties = documentedProperties(input.properties ?? {});
  const errors: FieldError[] = [];
  const occurred = occurredAt === undefined ? deps.clock.now() : parseDateTime(occurredAt);
  if (occurred === null) errors.push({ field: 'occurredAt', message: DATE_TIME_MESSAGE });
  for (const [name, value] of Object.entries(properties)) {
    if (holdsClearAddress(value)) {
      errors.push({ field: `properties.${name}`, message: CLEAR_ADDRESS_MESSAGE });
    }
  }
  if (occurred === null || errors.length > 0) throw new ValidationError(errors);

  const link = await loadLink(deps.db, deps.clock, reporter.scope, token);
  if (deps.rateLimiter) {
    const result = await deps.rateLimiter.hit(
      `user-events:${link.row.id}`,
      USER_EVENTS_PER_MINUTE,
      RATE_LIMIT_WINDOW_MS,
    );
    if (!result.allowed) {
      const headers = rateLimitHeaders(USER_EVENTS_PER_MINUTE, result);
      throw new RateLimitedError(Number(headers['ratelimit-reset']), headers);
    }
  }
  const now = deps.clock.now();
  const clientIdId = link.row.clientIdId;
  const payload = userEventPayload({
    userEvent,
    token: link.row.token,
    requestIds: link.requests.map((r) => r.requestId),
    clientId: (await publicClientId(deps.db, clientIdId)) ?? reporter.clientId,
    orchestratorId: clientIdId === null ? null : await orchestratorOfClientId(deps.db, clientIdId),
    occurredAt: occurred,
    receivedAt: now,
    properties,
  });
  await enqueueUserEvent(deps.db, now, { accountId: link.row.accountId, clientIdId }, payload);
  deps.wakeDispatcher?.();
}

/** The public `cli_…` of a client ID row, or null for none. */
async function publicClientId(db: Database, clientIdId: string | null): Promise<string | null> {
  if (clientIdId === null) return null;
  const [row] = await db
    .select({ clientId: clientIds.clientId })
    .from(clientIds)
    .where(eq(clientIds.id, clientIdId));
  return row?.clientId ?? null;
}
