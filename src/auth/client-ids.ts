import { eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { clientIds } from '../db/schema.ts';
import { type FieldError, ValidationError } from '../errors.ts';
import { CLIENT_ID_PREFIX, mintSecret } from './credentials.ts';
import { normaliseAllowedOrigin } from './origins.ts';

/**
 * Client IDs identify a merchant's front end (`x-client-id`). One with allowed domains only
 * works from those browser origins; one with none is a backend client ID and is as sensitive
 * as an API key, so the value carries 192 random bits.
 */

export const MAX_ALLOWED_DOMAINS = 10;
export const LABEL_MAX_LENGTH = 100;
const CLIENT_ID_BYTES = 24;

export type ClientIdRow = typeof clientIds.$inferSelect;

export interface NewClientId {
  readonly accountId: string;
  readonly label: string;
  readonly allowedDomains: readonly string[];
}

/** Validates and normalises a list of allowed domains; throws a 400 naming each bad entry. */
export function normaliseAllowedDomains(
  domains: readonly string[],
  field = 'allowedDomains',
): string[] {
  const errors: FieldError[] = [];
  if (domains.length > MAX_ALLOWED_DOMAINS) {
    errors.push({ field, message: `must contain at most ${MAX_ALLOWED_DOMAINS} origins` });
  }
  const origins: string[] = [];
  domains.forEach((domain, index) => {
    const check = normaliseAllowedOrigin(domain);
    if (!check.ok) errors.push({ field: `${field}[${index}]`, message: check.reason });
    else if (!origins.includes(check.origin)) origins.push(check.origin);
  });
  if (errors.length > 0) throw new ValidationError(errors);
  return origins;
}

export async function createClientId(db: Database, input: NewClientId): Promise<ClientIdRow> {
  const label = input.label.trim();
  if (label.length === 0 || label.length > LABEL_MAX_LENGTH) {
    throw new ValidationError([
      { field: 'label', message: `must be 1 to ${LABEL_MAX_LENGTH} characters` },
    ]);
  }
  const allowedDomains = normaliseAllowedDomains(input.allowedDomains);
  const [row] = await db
    .insert(clientIds)
    .values({
      accountId: input.accountId,
      clientId: mintSecret(CLIENT_ID_PREFIX, CLIENT_ID_BYTES),
      label,
      allowedDomains,
    })
    .returning();
  if (!row) throw new Error('client id insert returned no row');
  return row;
}

export async function findClientId(db: Database, value: string): Promise<ClientIdRow | null> {
  if (!value.startsWith(CLIENT_ID_PREFIX) || value.length > 64) return null;
  const [row] = await db.select().from(clientIds).where(eq(clientIds.clientId, value));
  return row ?? null;
}
