import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Hex } from 'viem';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { destinationNonces } from '../db/schema.ts';
import { type DestinationAction, type DestinationMessage, signedByWallet } from './signing.ts';
import type { ResolvedTarget } from './target.ts';

/** How long a signing nonce stays usable. */
const NONCE_TTL_MS = 10 * 60_000;

/** Single-use nonces for the EIP-712 messages a wallet signs to set or change a destination. */

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
