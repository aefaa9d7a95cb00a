import { hash } from 'node:crypto';
import { AppError } from '../base/errors.ts';
import type { Principal } from '../http/principal.ts';

/** The request header, as Stripe and the IETF httpapi draft name it. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set on an answer that was replayed from the record, not produced by running the request. */
export const REPLAYED_HEADER = 'idempotent-replayed';

const MAX_KEY_LENGTH = 255;
/** Printable ASCII, spaces included (a UUID, a ULID or an order id all fit). */
const KEY_PATTERN = /^[\x20-\x7e]+$/;

export const INVALID_KEY_MESSAGE = `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters`;

/** The key a request sent, checked; a repeated header arrives as a list and is refused. */
export function parseKey(value: string | string[]): string {
  const key = Array.isArray(value) ? null : value.trim();
  if (key === null || key.length === 0 || key.length > MAX_KEY_LENGTH || !KEY_PATTERN.test(key)) {
    throw new AppError('invalid_idempotency_key', INVALID_KEY_MESSAGE);
  }
  return key;
}

/**
 * Whose keys a caller shares. An API key and a session speak for the whole account, so they
 * share its keys (a retry may come from either). A client ID may be a browser's and so
 * public: its keys are its own, and an answer made with the account's key is never replayed
 * to it. An orchestrator's ids come from another space than accounts', hence the prefixes.
 */
export function scopeOf(principal: Principal): string {
  switch (principal.kind) {
    case 'apiKey':
    case 'session':
      return `account:${principal.accountId}`;
    case 'clientId':
      return `client:${principal.clientId.id}`;
    case 'orchestratorKey':
      return `orchestrator:${principal.orchestratorId}`;
    case 'orchestratorPair':
      return `orchestrator:${principal.orchestratorId}:client:${principal.clientId.id}`;
  }
}

/**
 * What makes two requests "the same": method, path with query, and the body as parsed. A JSON
 * body is hashed in a canonical form (keys sorted, no spaces), so a client that re-serialises
 * its retry in another key order still matches; a body a route's own parser kept as text or
 * bytes is hashed as it came.
 */
export function requestHash(method: string, url: string, body: unknown): string {
  const line = `${method} ${url}\n`;
  // One call, not a hash object fed in parts: this runs on every request with a key.
  const input = Buffer.isBuffer(body)
    ? Buffer.concat([Buffer.from(line), body])
    : `${line}${typeof body === 'string' ? body : body === undefined ? '' : canonicalJson(body)}`;
  return hash('sha256', input, 'base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The header as an OpenAPI parameter, declared once and referenced by each operation. */
export const IDEMPOTENCY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the first answer is kept 24 hours for this key and caller, and the same request sent again with it gets that answer again, byte for byte, with `Idempotent-Replayed: true`. The same key with another request answers 422; while the first still runs, 409 with `Retry-After`. A 5xx answer is not kept. See docs/guides/idempotency.md.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
} as const;
