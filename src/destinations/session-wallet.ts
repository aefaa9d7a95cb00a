import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { Clock } from '../base/clock.ts';
import { AppError, ValidationError } from '../base/errors.ts';
import { addressKey, parseAddress } from '../chains/address.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { users } from '../db/schema.ts';
import { type AccessPolicy, accessPolicyFrom } from './access-policy.ts';
import {
  activateDestination,
  changeActiveDestination,
  type DestinationRow,
} from './destinations.ts';
import { resolveWalletTarget } from './target.ts';
import type { TargetBody } from './v1-schemas.ts';

/**
 * Changes on /v1, for the signed-in wallet: the SIWE sign-in already proved the wallet, so no
 * per-change signature is asked for, unlike /v2. The records are the same as /v2's.
 */

const WALLET_SESSION_REQUIRED = 'A wallet session is required';
const NO_ACTIVE_DESTINATION = 'No active payee destination';
const SESSION_WALLET_MISMATCH =
  'walletAddress is not the signed-in wallet; sign in with that wallet to set its destination';

export interface SessionDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly chains: ChainRegistry;
}

type TargetInput = Static<typeof TargetBody>;

/** The signed-in user's wallet; a user who signed in by e-mail has none. */
export async function sessionWallet(db: Database, request: FastifyRequest): Promise<string> {
  const principal = request.principal;
  if (principal?.kind !== 'session') throw new Error('route accepts only sessions');
  const [user] = await db
    .select({ walletAddress: users.walletAddress })
    .from(users)
    .where(eq(users.id, principal.userId));
  if (!user?.walletAddress) {
    throw new AppError('wallet_session_required', WALLET_SESSION_REQUIRED);
  }
  return user.walletAddress;
}

/**
 * Auth API 0.14.0 clients name the destination's wallet (`walletAddress`). The session proved
 * one wallet, its own: naming it again (in any case) is the same as not naming it, and naming
 * another is refused before anything is written, or a session could set where someone else's
 * wallet is paid.
 */
function checkNamedWallet(wallet: string, named: string | undefined): void {
  if (named === undefined) return;
  const parsed = parseAddress(named);
  if (!parsed.ok) throw new ValidationError([{ field: 'walletAddress', message: parsed.message }]);
  const own = parseAddress(wallet, { allowZero: true });
  if (!own.ok || addressKey(own) !== addressKey(parsed)) {
    throw new AppError('session_wallet_mismatch', SESSION_WALLET_MISMATCH);
  }
}

/** Creates or reactivates `wallet`'s destination; its others in the account end. */
export async function createSessionDestination(
  deps: SessionDeps,
  accountId: string,
  wallet: string,
  input: TargetInput,
): Promise<DestinationRow> {
  checkNamedWallet(wallet, input.walletAddress);
  const target = resolveWalletTarget(deps.chains, wallet, input);
  // Create takes the whole destination: an omitted policy is the default, not the old one.
  const policy = accessPolicyFrom(input.accessPolicy ?? {});
  return activateDestination(deps.db, deps.clock, accountId, target, policy);
}

/** Moves `wallet`'s active destination; its policy is kept unless one is sent. */
export async function changeSessionDestination(
  deps: SessionDeps,
  accountId: string,
  wallet: string,
  input: TargetInput,
): Promise<DestinationRow> {
  checkNamedWallet(wallet, input.walletAddress);
  const target = resolveWalletTarget(deps.chains, wallet, input);
  const sent = input.accessPolicy;
  const policy: AccessPolicy | undefined = sent && accessPolicyFrom(sent);
  const row = await changeActiveDestination(deps.db, deps.clock, accountId, target, policy);
  if (!row) throw new AppError('no_active_destination', NO_ACTIVE_DESTINATION);
  return row;
}
