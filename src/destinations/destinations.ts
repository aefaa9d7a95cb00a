import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, ne } from 'drizzle-orm';
import type { Hex } from 'viem';
import type { Currency } from '../chains/currencies.ts';
import type { Network } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/client.ts';
import { clientIds, destinationNonces, payeeDestinations } from '../db/schema.ts';
import { AppError, BadRequestError, NotFoundError, ValidationError } from '../errors.ts';
import { buildDestinationId, type DestinationId, parseDestinationId } from './destination-id.ts';
import { type DestinationAction, type DestinationMessage, signedByWallet } from './signing.ts';

/** How long a signing nonce stays usable. */
const NONCE_TTL_MS = 10 * 60_000;

export type DestinationRow = typeof payeeDestinations.$inferSelect;

export const INVALID_DESTINATION_ID = 'Invalid destination ID format';

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
    throw new ValidationError([
      {
        field: 'walletAddress',
        message: `must be a valid ${network.kind === 'tron' ? 'Tron' : 'EVM'} address with a valid token address`,
      },
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

export function parseTarget(chains: ChainRegistry, destinationId: string): ResolvedTarget {
  const id = parseDestinationId(destinationId);
  if (id === null) throw new BadRequestError('invalid_destination_id', INVALID_DESTINATION_ID);
  return resolveTarget(chains, id);
}

/** Creates (or reactivates) a destination; the wallet's other destinations in the account end. */
export async function activateDestination(
  db: Database,
  clock: Clock,
  accountId: string,
  target: ResolvedTarget,
): Promise<DestinationRow> {
  return db.transaction(async (tx) => {
    const now = clock.now();
    await tx
      .update(payeeDestinations)
      .set({ active: false, updatedAt: now })
      .where(
        and(
          eq(payeeDestinations.accountId, accountId),
          eq(payeeDestinations.walletAddress, target.id.walletAddress),
          ne(payeeDestinations.destinationId, target.id.value),
        ),
      );
    const [row] = await tx
      .insert(payeeDestinations)
      .values({
        accountId,
        destinationId: target.id.value,
        walletAddress: target.id.walletAddress,
        chainId: target.id.chainId,
        network: target.network.id,
        tokenAddress: target.id.tokenAddress,
      })
      .onConflictDoUpdate({
        target: [payeeDestinations.accountId, payeeDestinations.destinationId],
        set: { active: true, updatedAt: now },
      })
      .returning();
    if (!row) throw new Error('destination upsert returned no row');
    return row;
  });
}

export async function findDestination(
  db: Database,
  accountId: string,
  destinationId: string,
): Promise<DestinationRow | null> {
  const parsed = parseDestinationId(destinationId);
  if (parsed === null) return null;
  const [row] = await db
    .select()
    .from(payeeDestinations)
    .where(
      and(
        eq(payeeDestinations.accountId, accountId),
        eq(payeeDestinations.destinationId, parsed.value),
      ),
    );
  return row ?? null;
}

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
  if (rows.length === 0) throw new NotFoundError('client_id_not_found', 'Client ID not found');
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
    throw new BadRequestError(
      'invalid_nonce',
      'Nonce is unknown, expired or already used; request new signing data',
    );
  }
  if (row.action !== input.expectedAction) {
    throw new BadRequestError('wrong_action', `This nonce was issued for action ${row.action}`);
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
    throw new BadRequestError('invalid_signature', 'Signature does not match the wallet address');
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
    throw new BadRequestError(
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
  const [updated] = await db
    .update(payeeDestinations)
    .set({ active: false, updatedAt: clock.now() })
    .where(eq(payeeDestinations.id, row.id))
    .returning();
  if (!updated) throw new AppError(500, 'internal_error', 'destination vanished');
  return updated;
}
