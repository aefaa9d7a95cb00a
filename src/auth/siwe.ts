import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import {
  concat,
  type Hex,
  keccak256,
  type PublicClient,
  recoverAddress,
  stringToBytes,
  verifyMessage,
} from 'viem';
import type { Clock } from '../base/clock.ts';
import { AppError, ValidationError } from '../base/errors.ts';
import { isUuid } from '../base/ids.ts';
import { ADDRESS_MESSAGES, detectWallet } from '../chains/address.ts';
import { evmToTron } from '../chains/tron-address.ts';
import type { Database } from '../db/client.ts';
import { walletChallenges } from '../db/schema.ts';

/**
 * Sign-In with Ethereum (EIP-4361), for EVM and Tron wallets. The server writes the message,
 * binds it to AUTH_URL, and accepts it back only byte for byte, once, within five minutes,
 * signed by the address it names: `personal_sign` on EVM (ERC-1271/6492 contract wallets too
 * when mainnet has an RPC), Tron's message signing v2 on Tron.
 */

export const CHALLENGE_TTL_MS = 5 * 60_000;
const STATEMENT = 'Sign in to payreq.';
/**
 * The Chain ID line of EVM messages when the client names none: sign-in is not tied to a
 * payment network. A client that names its wallet's chain (`chainId`) gets that one, so the
 * wallet shows no mismatch; the signature proves the address either way.
 */
const SIGN_IN_CHAIN_ID = 1;
/**
 * The largest chain ID a challenge takes: the largest whose EIP-155 `v` (2 × id + 36) is still
 * a JavaScript safe integer, the bound wallets (MetaMask) put on chain IDs. Past it a wallet
 * cannot be on that chain, and JSON numbers stop being exact.
 */
export const MAX_CHAIN_ID = 4_503_599_627_370_476;
const TRON_PREFIX = '\x19TRON Signed Message:\n';

export type WalletType = 'evm' | 'tron';

export interface Challenge {
  readonly challengeId: string;
  readonly nonce: string;
  readonly message: string;
  readonly expiresAt: string;
}

/** The domain and URI lines a message bound to this AUTH_URL carries. */
function siweOrigin(authUrl: string): { domain: string; uri: string } {
  return { domain: new URL(authUrl).host, uri: authUrl };
}

const header = (domain: string) => `${domain} wants you to sign in with your Ethereum account:`;

/** Whether the message names this domain and URI (messages we write carry each line once). */
function boundTo(message: string, origin: { domain: string; uri: string }): boolean {
  const lines = message.split('\n');
  return lines[0] === header(origin.domain) && lines.includes(`URI: ${origin.uri}`);
}

function siweMessage(input: {
  domain: string;
  uri: string;
  address: string;
  walletType: WalletType;
  chainId: number;
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
}): string {
  return [
    header(input.domain),
    input.address,
    '',
    STATEMENT,
    '',
    `URI: ${input.uri}`,
    'Version: 1',
    // Tron's message signing has no chain: its messages carry no Chain ID line.
    ...(input.walletType === 'evm' ? [`Chain ID: ${input.chainId}`] : []),
    `Nonce: ${input.nonce}`,
    `Issued At: ${input.issuedAt.toISOString()}`,
    `Expiration Time: ${input.expiresAt.toISOString()}`,
  ].join('\n');
}

export async function issueChallenge(
  db: Database,
  clock: Clock,
  authUrl: string,
  address: string,
  chainId: number = SIGN_IN_CHAIN_ID,
): Promise<Challenge> {
  const wallet = detectWallet(address);
  if (!wallet) {
    throw new ValidationError([{ field: 'address', message: ADDRESS_MESSAGES.any }]);
  }
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
  const nonce = randomBytes(16).toString('hex');
  const message = siweMessage({
    ...siweOrigin(authUrl),
    address: wallet.address,
    walletType: wallet.walletType,
    chainId,
    nonce,
    issuedAt: now,
    expiresAt,
  });
  const [row] = await db
    .insert(walletChallenges)
    .values({
      nonce,
      address: wallet.address,
      walletType: wallet.walletType,
      message,
      expiresAt,
      createdAt: now,
    })
    .returning({ id: walletChallenges.id });
  if (!row) throw new Error('challenge insert returned no row');
  return { challengeId: row.id, nonce, message, expiresAt: expiresAt.toISOString() };
}

/** Tron's v2 message hash: keccak256 of the prefix, the UTF-8 byte length, then the message. */
export function tronMessageHash(message: string): Hex {
  const bytes = stringToBytes(message);
  return keccak256(concat([stringToBytes(`${TRON_PREFIX}${bytes.length}`), bytes]));
}

const refusedOnError = (check: () => Promise<boolean>) => check().catch(() => false);

/** Whether `signature` is the base58 Tron `address` signing `message` (message signing v2). */
export function tronSignedBy(input: {
  address: string;
  message: string;
  signature: Hex;
}): Promise<boolean> {
  return refusedOnError(async () => {
    const signer = await recoverAddress({
      hash: tronMessageHash(input.message),
      signature: input.signature,
    });
    return evmToTron(signer) === input.address;
  });
}

async function signedBy(
  challenge: { address: string; walletType: WalletType; message: string },
  signature: Hex,
  mainnet: PublicClient | null,
): Promise<boolean> {
  if (challenge.walletType === 'tron') {
    return tronSignedBy({ address: challenge.address, message: challenge.message, signature });
  }
  const args = { address: challenge.address as Hex, message: challenge.message, signature };
  // An EOA checks out offline. Only a contract wallet needs mainnet: ERC-1271 once deployed,
  // ERC-6492 (a longer, wrapped signature) before; viem answers false when the RPC fails.
  if (await refusedOnError(() => verifyMessage(args))) return true;
  return mainnet ? refusedOnError(() => mainnet.verifyMessage(args)) : false;
}

const REFUSED =
  'Sign-in refused: the challenge is unknown, expired or used, or the signature does not match';

/** Which check refused a sign-in: logged, never sent to the caller. */
export type RefusalReason =
  | 'malformed_challenge_id'
  | 'unknown_challenge'
  | 'nonce_mismatch'
  | 'message_altered'
  | 'already_used'
  | 'expired'
  | 'wrong_domain'
  | 'wrong_signer';

/**
 * Every refused sign-in gets the same 401: which check failed is for the log (`reason`), not
 * for whoever is guessing.
 */
export class SignInRefusedError extends AppError {
  readonly reason: RefusalReason;
  constructor(reason: RefusalReason) {
    super('sign_in_refused', REFUSED);
    this.reason = reason;
  }
}

/**
 * Checks a signed challenge and consumes it (once, atomically). The message must also name
 * the current AUTH_URL: a challenge issued under another one (the same database behind two
 * deployments, or AUTH_URL changed since) was meant for another site.
 */
export async function verifyChallenge(
  db: Database,
  clock: Clock,
  input: {
    authUrl: string;
    challengeId: string;
    nonce: string;
    message: string;
    signature: Hex;
    mainnet: PublicClient | null;
  },
): Promise<{ address: string; walletType: WalletType }> {
  const refuse = (reason: RefusalReason) => new SignInRefusedError(reason);
  if (!isUuid(input.challengeId)) throw refuse('malformed_challenge_id');
  const [challenge] = await db
    .select()
    .from(walletChallenges)
    .where(eq(walletChallenges.id, input.challengeId));
  const now = clock.now();
  if (!challenge) throw refuse('unknown_challenge');
  if (challenge.nonce !== input.nonce) throw refuse('nonce_mismatch');
  if (challenge.message !== input.message) throw refuse('message_altered');
  if (challenge.consumedAt !== null) throw refuse('already_used');
  if (challenge.expiresAt <= now) throw refuse('expired');
  if (!boundTo(challenge.message, siweOrigin(input.authUrl))) throw refuse('wrong_domain');
  if (!(await signedBy(challenge, input.signature, input.mainnet))) throw refuse('wrong_signer');
  const consumed = await db
    .update(walletChallenges)
    .set({ consumedAt: now })
    .where(
      and(
        eq(walletChallenges.id, challenge.id),
        isNull(walletChallenges.consumedAt),
        gt(walletChallenges.expiresAt, now),
      ),
    )
    .returning({ id: walletChallenges.id });
  // Lost the race to a concurrent verify of the same challenge.
  if (consumed.length !== 1) throw refuse('already_used');
  return { address: challenge.address, walletType: challenge.walletType };
}
