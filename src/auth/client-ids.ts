import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { AppError, type FieldError, ValidationError } from '../base/errors.ts';
import { isUuid } from '../base/ids.ts';
import type { Database } from '../db/client.ts';
import { type ClientIdRow, clientIds, payeeDestinations } from '../db/schema.ts';
import { parseDestinationId } from '../destinations/destination-id.ts';
import { findDestination, lockWalletDestinations } from '../destinations/destinations.ts';
import { credentialsChanged } from '../http/credential-cache.ts';
import { type ClientIdSettings, checkClientIdFields, settingsOf } from './client-id-rules.ts';
import { CLIENT_ID_PREFIX, mintSecret } from './credentials.ts';

/**
 * Client IDs identify a merchant's front end (`x-client-id`). One with allowed domains only
 * works from those browser origins; one with none is a backend client ID and is as sensitive
 * as an API key, so the value carries 192 random bits.
 */

const CLIENT_ID_BYTES = 24;
const CLIENT_ID_NOT_FOUND = 'Client ID not found';
const CLIENT_ID_REVOKED_FINAL = 'A revoked client ID cannot be reactivated';
const CLIENT_ID_REVOKED_UNCHANGEABLE = 'A revoked client ID cannot be changed';

type ClientIdStatus = ClientIdRow['status'];

export interface NewClientId extends Partial<ClientIdSettings> {
  readonly accountId: string;
  readonly label: string;
  readonly allowedDomains: readonly string[];
  /** A destination id (`<wallet>@eip155:…`) of an active destination of the same account. */
  readonly payeeDestinationId?: string | null;
  readonly createdAt?: Date;
}

/** A PUT: absent fields stay, null unsets. */
export interface ClientIdChange extends Partial<ClientIdSettings> {
  readonly label?: string;
  readonly allowedDomains?: readonly string[] | null;
  readonly status?: ClientIdStatus;
  readonly payeeDestinationId?: string | null;
}

/** What the API shows: the row and the destination id it is bound to, if any. */
export interface ClientIdRecord {
  readonly row: ClientIdRow;
  readonly payeeDestinationId: string | null;
}

/** Surfaces differ on domains: `/v2` wants at least one, `/v1` allows backend client IDs. */
export interface ClientIdPolicy {
  readonly minDomains: number;
}

/**
 * The row id of an active destination of the account, or the reason it cannot be bound. Call
 * it in the transaction that writes the binding, before locking the client ID: it holds the
 * wallet's destination lock until the end, so a concurrent change of the wallet's destination
 * either lands first (and the new one is checked) or waits and then moves this binding along
 * with the others (see activateDestination).
 */
async function bindableDestination(
  tx: Database,
  accountId: string,
  value: string,
): Promise<{ id: string } | FieldError> {
  const field = 'payeeDestinationId';
  const parsed = parseDestinationId(value);
  if (parsed === null) return { field, message: 'is not a valid destination ID' };
  await lockWalletDestinations(tx, accountId, parsed.walletAddress);
  const row = await findDestination(tx, accountId, value);
  if (row === null) return { field, message: 'is not a payee destination of this account' };
  if (!row.active) return { field, message: 'is inactive; bind an active payee destination' };
  return { id: row.id };
}

export async function createClientId(
  db: Database,
  input: NewClientId,
  policy: ClientIdPolicy = { minDomains: 0 },
): Promise<ClientIdRow> {
  const check = checkClientIdFields(
    { label: input.label, allowedDomains: input.allowedDomains, ...settingsOf(input) },
    policy.minDomains,
  );
  return db.transaction(async (tx) => {
    let destinationRowId: string | null = null;
    if (input.payeeDestinationId != null) {
      const bound = await bindableDestination(tx, input.accountId, input.payeeDestinationId);
      if ('field' in bound) check.errors.push(bound);
      else destinationRowId = bound.id;
    }
    if (check.errors.length > 0) throw new ValidationError(check.errors);
    const { label, allowedDomains, ...settings } = check.fields;
    const [row] = await tx
      .insert(clientIds)
      .values({
        accountId: input.accountId,
        clientId: mintSecret(CLIENT_ID_PREFIX, CLIENT_ID_BYTES),
        label,
        allowedDomains: [...allowedDomains],
        ...settings,
        payeeDestinationId: destinationRowId,
        ...(input.createdAt && { createdAt: input.createdAt, updatedAt: input.createdAt }),
      })
      .returning();
    if (!row) throw new Error('client id insert returned no row');
    return row;
  });
}

export async function findClientId(db: Database, value: string): Promise<ClientIdRow | null> {
  if (!value.startsWith(CLIENT_ID_PREFIX) || value.length > 64) return null;
  const [row] = await db.select().from(clientIds).where(eq(clientIds.clientId, value));
  return row ?? null;
}

async function records(db: Database, where: SQL | undefined): Promise<ClientIdRecord[]> {
  const rows = await db
    .select({ row: clientIds, payeeDestinationId: payeeDestinations.destinationId })
    .from(clientIds)
    .leftJoin(payeeDestinations, eq(payeeDestinations.id, clientIds.payeeDestinationId))
    .where(where)
    .orderBy(asc(clientIds.createdAt), asc(clientIds.id));
  return rows;
}

export async function listClientIds(db: Database, accountId: string): Promise<ClientIdRecord[]> {
  return records(db, eq(clientIds.accountId, accountId));
}

/** One of the account's client IDs by row id; another account's is as unknown as a missing one. */
export async function accountClientId(
  db: Database,
  accountId: string,
  id: string,
): Promise<ClientIdRecord> {
  const [record] = isUuid(id)
    ? await records(db, and(eq(clientIds.id, id), eq(clientIds.accountId, accountId)))
    : [];
  if (!record) throw new AppError('client_id_not_found', CLIENT_ID_NOT_FOUND);
  return record;
}

export async function updateClientId(
  db: Database,
  clock: Clock,
  scope: { accountId: string; id: string },
  change: ClientIdChange,
  policy: ClientIdPolicy,
): Promise<ClientIdRecord> {
  const updated = await db.transaction(async (tx) => {
    // Checked first, as it takes the wallet's lock, which comes before the client ID's row lock.
    const bound =
      change.payeeDestinationId == null
        ? null
        : await bindableDestination(tx, scope.accountId, change.payeeDestinationId);
    // Locked, so a concurrent revoke cannot be undone by this write.
    const [row] = isUuid(scope.id)
      ? await tx
          .select()
          .from(clientIds)
          .where(and(eq(clientIds.id, scope.id), eq(clientIds.accountId, scope.accountId)))
          .for('update')
      : [];
    if (!row) throw new AppError('client_id_not_found', CLIENT_ID_NOT_FOUND);
    if (row.status === 'revoked') return revokedUnchanged(tx, scope.accountId, row.id, change);
    // Absent fields keep what is stored (a JSON body never carries undefined); null unsets.
    const check = checkClientIdFields(
      {
        label: change.label ?? row.label,
        allowedDomains:
          change.allowedDomains === undefined ? row.allowedDomains : (change.allowedDomains ?? []),
        ...settingsOf({ ...settingsOf(row), ...change }),
      },
      change.allowedDomains === undefined ? 0 : policy.minDomains,
    );
    let destinationRowId = row.payeeDestinationId;
    if (change.payeeDestinationId === null) destinationRowId = null;
    else if (bound !== null) {
      if ('field' in bound) check.errors.push(bound);
      else destinationRowId = bound.id;
    }
    if (check.errors.length > 0) throw new ValidationError(check.errors);
    const { allowedDomains, ...fields } = check.fields;
    await tx
      .update(clientIds)
      .set({
        ...fields,
        allowedDomains: [...allowedDomains],
        payeeDestinationId: destinationRowId,
        status: change.status ?? row.status,
        updatedAt: clock.now(),
      })
      .where(eq(clientIds.id, row.id));
    return accountClientId(tx, scope.accountId, row.id);
  });
  credentialsChanged();
  return updated;
}

/**
 * A PUT on a revoked client ID. Revoked is final and the record stays as it was when revoked,
 * so nothing may change: every field sent is refused, in one 400. The one exception is asking
 * for `status: revoked` and nothing else, which is revoking again; like a second DELETE it
 * answers the record and writes nothing, so a retried revoke does not fail.
 */
async function revokedUnchanged(
  db: Database,
  accountId: string,
  id: string,
  change: ClientIdChange,
): Promise<ClientIdRecord> {
  const sent = Object.entries(change).filter(([, value]) => value !== undefined);
  const refused = sent.filter(([field, value]) => !(field === 'status' && value === 'revoked'));
  if (refused.length === 0) return accountClientId(db, accountId, id);
  const reactivating = change.status !== undefined && change.status !== 'revoked';
  throw new AppError(
    'client_id_revoked',
    reactivating ? CLIENT_ID_REVOKED_FINAL : CLIENT_ID_REVOKED_UNCHANGEABLE,
    { errors: refused.map(([field]) => ({ field, message: 'cannot change once revoked' })) },
  );
}

/** Revokes for good; revoking again changes nothing and answers the same. */
export async function revokeClientId(
  db: Database,
  clock: Clock,
  scope: { accountId: string; id: string },
): Promise<ClientIdRecord> {
  const record = await accountClientId(db, scope.accountId, scope.id);
  if (record.row.status === 'revoked') return record;
  await db
    .update(clientIds)
    .set({ status: 'revoked', updatedAt: clock.now() })
    .where(and(eq(clientIds.id, record.row.id), eq(clientIds.accountId, scope.accountId)));
  credentialsChanged();
  return accountClientId(db, scope.accountId, scope.id);
}
