import { randomBytes } from 'node:crypto';
import { and, desc, eq, gt, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { Hex } from 'viem';
import { credentialsChanged } from '../auth/credential-cache.ts';
import type { Currency } from '../chains/currencies.ts';
import type { Network } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/client.ts';
import { preparedPerDatabase } from '../db/prepared.ts';
import { clientIds, destinationNonces, payeeDestinations, users } from '../db/schema.ts';
import { AppError, ValidationError } from '../errors.ts';
import {
  buildDestinationId,
  type DestinationId,
  normaliseToken,
  normaliseWallet,
  parseDestinationId,
  parseWallet,
} from './destination-id.ts';
import { type DestinationAction, type DestinationMessage, signedByWallet } from './signing.ts';

/** How long a signing nonce stays usable. */
const NONCE_TTL_MS = 10 * 60_000;

export type DestinationRow = typeof payeeDestinations.$inferSelect;

export const INVALID_DESTINATION_ID = 'Invalid destination ID format';
/** 403 when a caller bound to a destination names another one. */
export const DESTINATION_MISMATCH_MESSAGE =
  'Destination does not match the configured payment destination.';

/** What a destination id names, checked against the networks and tokens we serve. */
export interface ResolvedTarget {
  readonly id: DestinationId;
  readonly network: Network;
  readonly currency: Currency;
}

/** Validates wallet, chain and token together; throws 400 naming what is wrong. */
export function resolveTarget(
  chains: ChainRegistry,
  input: { walletAddress: string; chainId: number; tokenAddress: string },
): ResolvedTarget {
  const network = chains.networkByChainId(input.chainId);
  if (!network) {
    throw new ValidationError([
      {
        field: 'chainId',
        message: `is not a supported chain (${chains.networks.map((n) => n.chainId).join(', ')})`,
      },
    ]);
  }
  const id = buildDestinationId(input.walletAddress, input.chainId, input.tokenAddress);
  if (id === null) {
    // Say which address is wrong, in the address parser's words.
    const wallet = parseWallet(input.walletAddress, input.chainId);
    const token = parseWallet(input.tokenAddress, input.chainId);
    throw new ValidationError([
      wallet.ok
        ? {
            field: 'tokenAddress',
            message: token.ok ? 'is not a token of this chain' : token.message,
          }
        : { field: 'walletAddress', message: wallet.message },
    ]);
  }
  const currency = chains.currencyByToken(network.id as never, id.tokenAddress);
  if (!currency) {
    throw new ValidationError([
      { field: 'tokenAddress', message: `is not a supported token on ${network.id}` },
    ]);
  }
  return { id, network, currency };
}

/** Destination ids parsed lately, per registry: a merchant sends the same few on every link. */
const parsedTargets = new WeakMap<ChainRegistry, Map<string, ResolvedTarget>>();
/** How many parsed ids are kept per registry; past it the oldest is dropped. */
const MAX_PARSED_TARGETS = 1_000;

/**
 * What a destination id names, or a 400. Parsing one verifies its checksum (a keccak256) and
 * both addresses' checksums; the answer depends only on the id and the registry, so a parsed id
 * is kept and the next link to it skips that work. Only ids that parse are kept.
 */
export function parseTarget(chains: ChainRegistry, destinationId: string): ResolvedTarget {
  let parsed = parsedTargets.get(chains);
  if (parsed === undefined) {
    parsed = new Map();
    parsedTargets.set(chains, parsed);
  }
  const kept = parsed.get(destinationId);
  if (kept !== undefined) return kept;
  const id = parseDestinationId(destinationId);
  if (id === null) throw new AppError('invalid_destination_id', INVALID_DESTINATION_ID);
  const target = resolveTarget(chains, id);
  if (parsed.size >= MAX_PARSED_TARGETS) parsed.delete(parsed.keys().next().value ?? '');
  parsed.set(destinationId, target);
  return target;
}

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

export async function issueNonce(
  db: Database,
  clock: Clock,
  accountId: string,
  action: DestinationAction,
  target: ResolvedTarget,
): Promise<DestinationMessage> {
  const nonce = randomBytes(16).toString('hex');
  const expiresAt = new Date(clock.now().getTime() + NONCE_TTL_MS);
  await db.insert(destinationNonces).values({
    nonce,
    accountId,
    action,
    walletAddress: target.id.walletAddress,
    chainId: target.id.chainId,
    tokenAddress: target.id.tokenAddress,
    expiresAt,
  });
  return {
    action,
    walletAddress: target.id.walletAddress,
    chainId: target.id.chainId,
    tokenAddress: target.id.tokenAddress,
    nonce,
    expiresAt: Math.floor(expiresAt.getTime() / 1000),
  };
}

/**
 * Checks the signature over the nonce's message and consumes the nonce, atomically: of two
 * requests racing with the same nonce, exactly one gets through.
 */
export async function consumeSignedNonce(
  db: Database,
  clock: Clock,
  accountId: string,
  input: { nonce: string; signature: Hex; expectedAction: DestinationAction },
): Promise<DestinationMessage> {
  const [row] = await db
    .select()
    .from(destinationNonces)
    .where(
      and(eq(destinationNonces.nonce, input.nonce), eq(destinationNonces.accountId, accountId)),
    );
  const now = clock.now();
  if (!row || row.consumedAt !== null || row.expiresAt <= now) {
    throw new AppError(
      'invalid_nonce',
      'Nonce is unknown, expired or already used; request new signing data',
    );
  }
  if (row.action !== input.expectedAction) {
    throw new AppError('wrong_action', `This nonce was issued for action ${row.action}`);
  }
  const message: DestinationMessage = {
    action: row.action,
    walletAddress: row.walletAddress,
    chainId: row.chainId,
    tokenAddress: row.tokenAddress,
    nonce: row.nonce,
    expiresAt: Math.floor(row.expiresAt.getTime() / 1000),
  };
  if (!(await signedByWallet(message, input.signature))) {
    throw new AppError('invalid_signature', 'Signature does not match the wallet address');
  }
  const consumed = await db
    .update(destinationNonces)
    .set({ consumedAt: now })
    .where(
      and(
        eq(destinationNonces.nonce, row.nonce),
        isNull(destinationNonces.consumedAt),
        gt(destinationNonces.expiresAt, now),
      ),
    )
    .returning({ nonce: destinationNonces.nonce });
  if (consumed.length !== 1) {
    throw new AppError(
      'invalid_nonce',
      'Nonce is unknown, expired or already used; request new signing data',
    );
  }
  return message;
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

export type AccessPolicy = DestinationRow['accessPolicy'];

/** Whether `next` screens and hides at least what `previous` did (the provider may differ). */
export function guardsAsWell(next: AccessPolicy, previous: AccessPolicy): boolean {
  return (
    (previous.mode === 'off' || next.mode === 'kyt_all_wallets') &&
    (!previous.hideUntilApproved || next.hideUntilApproved) &&
    (!previous.hidePayeeAddress || next.hidePayeeAddress)
  );
}

/** What a destination gets when no policy is given: anyone may pay, nothing hidden. */
export const DEFAULT_ACCESS_POLICY: AccessPolicy = {
  mode: 'off',
  screeningProvider: null,
  hideUntilApproved: false,
  hidePayeeAddress: false,
};

/**
 * A caller's access policy completed with defaults. There is no default screening provider:
 * `kyt_all_wallets` must name one, and `off` must not, so a stored policy never carries a
 * provider that does nothing.
 */
export function accessPolicyFrom(input: Partial<AccessPolicy>): AccessPolicy {
  const mode = input.mode ?? DEFAULT_ACCESS_POLICY.mode;
  const screeningProvider = input.screeningProvider ?? null;
  if (mode === 'kyt_all_wallets' && screeningProvider === null) {
    throw new ValidationError([
      {
        field: 'accessPolicy.screeningProvider',
        message: 'is required when mode is kyt_all_wallets',
      },
    ]);
  }
  if (mode === 'off' && screeningProvider !== null) {
    throw new ValidationError([
      {
        field: 'accessPolicy.screeningProvider',
        message: 'must be null or omitted when mode is off',
      },
    ]);
  }
  return {
    mode,
    screeningProvider,
    hideUntilApproved: input.hideUntilApproved ?? false,
    hidePayeeAddress: input.hidePayeeAddress ?? false,
  };
}

/**
 * resolveTarget for a signed-in wallet: the wallet comes from the session, not the body, so a
 * wallet that cannot live on the chain is reported against `chainId` and a token of the wrong
 * address family against `tokenAddress`.
 */
export function resolveWalletTarget(
  chains: ChainRegistry,
  walletAddress: string,
  input: { chainId: number; tokenAddress: string },
): ResolvedTarget {
  const network = chains.networkByChainId(input.chainId);
  if (network) {
    const family = network.kind === 'tron' ? 'Tron' : 'EVM';
    const article = network.kind === 'tron' ? 'a' : 'an';
    if (normaliseWallet(walletAddress, input.chainId) === null) {
      throw new ValidationError([
        {
          field: 'chainId',
          message: `is ${article} ${family} network; sign in with ${article} ${family} wallet to receive on it`,
        },
      ]);
    }
    if (normaliseToken(input.tokenAddress, input.chainId) === null) {
      throw new ValidationError([
        { field: 'tokenAddress', message: `must be a valid ${family} address` },
      ]);
    }
  }
  return resolveTarget(chains, { walletAddress, ...input });
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
