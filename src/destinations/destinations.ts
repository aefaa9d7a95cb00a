import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { preparedPerDatabase } from '../db/prepared.ts';
import { clientIds, payeeDestinations, users } from '../db/schema.ts';
import { credentialsChanged } from '../http/credential-cache.ts';
import { type AccessPolicy, guardsAsWell } from './access-policy.ts';
import { parseDestinationId } from './destination-id.ts';
import type { ResolvedTarget } from './target.ts';

export type DestinationRow = typeof payeeDestinations.$inferSelect;

/** 403 when a caller bound to a destination names another one. */
export const DESTINATION_MISMATCH_MESSAGE =
  'Destination does not match the configured payment destination.';

/**
 * Serialises changes to one wallet's destinations in one account, and bindings to them, until
 * the transaction ends. A wallet has at most one active destination per account (a unique index
 * says so too): without this, two concurrent activations of different tokens would each find
 * nothing to end and one would fail on that index. Every path that activates a destination,
 * /v1 and /v2 alike, takes it first, and so does binding a client ID (then a binding never lands
 * on a destination that a concurrent change just ended). Take it before any row lock, so every
 * path locks in the same order. An advisory lock, not a row lock: a first activation has no row.
 */
export async function lockWalletDestinations(
  tx: Database,
  accountId: string,
  walletAddress: string,
): Promise<void> {
  const key = `payee_destination:${accountId}:${walletAddress}`;
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
}

/**
 * Creates (or reactivates) a destination; the wallet's other active destination in the account
 * ends, and the client IDs bound to it follow to this one when it guards payers at least as
 * well, so changing where a wallet is paid does not leave them on an ended destination (revoked
 * ones keep their record). Bound to a screened destination, they stay on the ended one (and
 * refuse new links) rather than start paying an unscreened one.
 * With an access policy, it is set too; without one, a reactivated destination keeps its own.
 */
export async function activateDestination(
  db: Database,
  clock: Clock,
  accountId: string,
  target: ResolvedTarget,
  accessPolicy?: AccessPolicy,
): Promise<DestinationRow> {
  const activated = await db.transaction(async (tx) => {
    await lockWalletDestinations(tx, accountId, target.id.walletAddress);
    const now = clock.now();
    const ended = await tx
      .update(payeeDestinations)
      .set({ active: false, updatedAt: now })
      .where(
        and(
          eq(payeeDestinations.accountId, accountId),
          eq(payeeDestinations.walletAddress, target.id.walletAddress),
          eq(payeeDestinations.active, true),
          ne(payeeDestinations.destinationId, target.id.value),
        ),
      )
      .returning({ id: payeeDestinations.id, accessPolicy: payeeDestinations.accessPolicy });
    const [row] = await tx
      .insert(payeeDestinations)
      .values({
        accountId,
        destinationId: target.id.value,
        walletAddress: target.id.walletAddress,
        chainId: target.id.chainId,
        network: target.network.id,
        tokenAddress: target.id.tokenAddress,
        createdAt: now,
        updatedAt: now,
        ...(accessPolicy && { accessPolicy }),
      })
      .onConflictDoUpdate({
        target: [payeeDestinations.accountId, payeeDestinations.destinationId],
        set: { active: true, updatedAt: now, ...(accessPolicy && { accessPolicy }) },
      })
      .returning();
    if (!row) throw new Error('destination upsert returned no row');
    // Bindings follow only where the new destination guards payers at least as well: a client
    // ID bound to a screened destination must not start paying an unscreened one unasked.
    const followed = ended.filter((e) => guardsAsWell(row.accessPolicy, e.accessPolicy));
    if (followed.length > 0) {
      await tx
        .update(clientIds)
        .set({ payeeDestinationId: row.id, updatedAt: now })
        .where(
          and(
            eq(clientIds.accountId, accountId),
            inArray(
              clientIds.payeeDestinationId,
              followed.map((e) => e.id),
            ),
            ne(clientIds.status, 'revoked'),
          ),
        );
    }
    return row;
  });
  // Client IDs bound to the old destination may follow the new one.
  credentialsChanged();
  return activated;
}

export async function findDestination(
  db: Database,
  accountId: string,
  destinationId: string,
): Promise<DestinationRow | null> {
  const parsed = parseDestinationId(destinationId);
  if (parsed === null) return null;
  return findCanonicalDestination(db, accountId, parsed.value);
}

/** `findDestination` for an id already in its canonical form (a parsed id's `value`). */
export async function findCanonicalDestination(
  db: Database,
  accountId: string,
  canonicalId: string,
): Promise<DestinationRow | null> {
  const [row] = await destinationQueries(db).byId.execute({
    accountId,
    destinationId: canonicalId,
  });
  return row ?? null;
}

const destinationQueries = preparedPerDatabase((db) => ({
  byId: db
    .select()
    .from(payeeDestinations)
    .where(
      and(
        eq(payeeDestinations.accountId, sql.placeholder('accountId')),
        eq(payeeDestinations.destinationId, sql.placeholder('destinationId')),
      ),
    )
    .prepare('destination_by_id'),
}));

export async function activeDestinationOf(
  db: Database,
  accountId: string,
  walletAddress: string,
): Promise<DestinationRow | null> {
  const [row] = await db
    .select()
    .from(payeeDestinations)
    .where(
      and(
        eq(payeeDestinations.accountId, accountId),
        eq(payeeDestinations.walletAddress, walletAddress),
        eq(payeeDestinations.active, true),
      ),
    );
  return row ?? null;
}

/** The destination a client ID is bound to, active or not; null when it is bound to none. */
export async function boundDestination(
  db: Database,
  clientId: { readonly payeeDestinationId: string | null } | null | undefined,
): Promise<DestinationRow | null> {
  const id = clientId?.payeeDestinationId;
  if (!id) return null;
  const [row] = await db.select().from(payeeDestinations).where(eq(payeeDestinations.id, id));
  return row ?? null;
}

/** Binds a destination to a client ID of the same account: links made with it pay there. */
export async function bindDestination(
  db: Database,
  clock: Clock,
  accountId: string,
  clientIdValue: string,
  destination: DestinationRow,
): Promise<void> {
  const rows = await db
    .update(clientIds)
    .set({ payeeDestinationId: destination.id, updatedAt: clock.now() })
    .where(and(eq(clientIds.clientId, clientIdValue), eq(clientIds.accountId, accountId)))
    .returning({ id: clientIds.id });
  if (rows.length === 0) throw new AppError('client_id_not_found', 'Client ID not found');
  credentialsChanged();
}

export async function deactivateDestination(
  db: Database,
  clock: Clock,
  row: DestinationRow,
): Promise<DestinationRow> {
  return db.transaction(async (tx) => {
    // Under the wallet's lock, like every change to its destinations and bindings to them.
    await lockWalletDestinations(tx, row.accountId, row.walletAddress);
    const [updated] = await tx
      .update(payeeDestinations)
      .set({ active: false, updatedAt: clock.now() })
      .where(eq(payeeDestinations.id, row.id))
      .returning();
    if (!updated) throw new AppError('internal_error', 'destination vanished');
    return updated;
  });
}

/**
 * Moves the wallet's active destination to `target`; null when the wallet has none active.
 * Without a policy the current one carries over. The active row is locked, so a concurrent
 * deactivation either lands first (null) or after the change.
 */
export async function changeActiveDestination(
  db: Database,
  clock: Clock,
  accountId: string,
  target: ResolvedTarget,
  accessPolicy: AccessPolicy | undefined,
): Promise<DestinationRow | null> {
  const changed = await db.transaction(async (tx) => {
    await lockWalletDestinations(tx, accountId, target.id.walletAddress);
    const [current] = await tx
      .select()
      .from(payeeDestinations)
      .where(
        and(
          eq(payeeDestinations.accountId, accountId),
          eq(payeeDestinations.walletAddress, target.id.walletAddress),
          eq(payeeDestinations.active, true),
        ),
      )
      .for('update');
    if (!current) return null;
    return activateDestination(tx, clock, accountId, target, accessPolicy ?? current.accessPolicy);
  });
  // Once committed: a lookup made before the commit may have kept the old binding.
  credentialsChanged();
  return changed;
}

/**
 * Where a payer should pay a wallet, whoever asks. Every stored destination was endorsed by
 * its wallet (a SIWE session or an EIP-712 signature), so any account's active one is the
 * wallet's own wish; the one the wallet set in its own account wins, then the latest set.
 */
export async function payoutDestinationOf(
  db: Database,
  walletAddress: string,
): Promise<DestinationRow | null> {
  const [found] = await db
    .select({ destination: payeeDestinations })
    .from(payeeDestinations)
    .leftJoin(
      users,
      and(
        eq(users.accountId, payeeDestinations.accountId),
        eq(users.walletAddress, payeeDestinations.walletAddress),
      ),
    )
    .where(
      and(eq(payeeDestinations.walletAddress, walletAddress), eq(payeeDestinations.active, true)),
    )
    .orderBy(
      sql`${users.id} is null`,
      desc(payeeDestinations.updatedAt),
      desc(payeeDestinations.id),
    )
    .limit(1);
  return found?.destination ?? null;
}
