import { lt } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.ts';
import { createPoller } from '../base/poller.ts';
import type { Database } from '../db/client.ts';
import { destinationNonces, sessions, walletChallenges } from '../db/schema.ts';
import { pruneExpiredKeys } from '../idempotency/records.ts';
import { releaseLinkKeys } from '../secure-payments/link-keys.ts';

/** Rows kept this long past their expiry (to answer "why was I refused?"), then deleted. */
export const KEEP_EXPIRED_MS = 24 * 60 * 60_000;
const EVERY_MS = 10 * 60_000;

export interface Purged {
  readonly challenges: number;
  readonly nonces: number;
  readonly sessions: number;
  /** Idempotency-Key records past their 24 hours (deleted then, not a day later). */
  readonly idempotencyKeys: number;
  /** Links whose `Idempotency-Key` was let go after its 24 hours (the link stays). */
  readonly linkKeys: number;
}

/**
 * Deletes what only matters until it expires: sign-in challenges (anyone may ask for one),
 * destination signing nonces, sessions past their hard end, and the answers kept for
 * `Idempotency-Key`s once their 24 hours are over (a link's key is let go, the link kept). Safe to run from several
 * processes at once.
 */
export async function purgeExpired(db: Database, now: Date): Promise<Purged> {
  const before = new Date(now.getTime() - KEEP_EXPIRED_MS);
  const [challenges, nonces, ended, idempotencyKeys, linkKeys] = await Promise.all([
    db
      .delete(walletChallenges)
      .where(lt(walletChallenges.expiresAt, before))
      .returning({ id: walletChallenges.id }),
    db
      .delete(destinationNonces)
      .where(lt(destinationNonces.expiresAt, before))
      .returning({ nonce: destinationNonces.nonce }),
    db.delete(sessions).where(lt(sessions.expiresAt, before)).returning({ id: sessions.id }),
    pruneExpiredKeys(db, now),
    releaseLinkKeys(db, now),
  ]);
  return {
    challenges: challenges.length,
    nonces: nonces.length,
    sessions: ended.length,
    idempotencyKeys,
    linkKeys,
  };
}

export interface Janitor {
  start(): void;
  stop(): Promise<void>;
}

export function createJanitor(deps: { db: Database; clock: Clock; logger: Logger }): Janitor {
  const poller = createPoller({
    logger: deps.logger,
    pollMs: EVERY_MS,
    round: async () => {
      const purged = await purgeExpired(deps.db, deps.clock.now());
      if (Object.values(purged).some((count) => count > 0))
        deps.logger.info(purged, 'expired rows purged');
      return false;
    },
    failure: { level: 'warn', message: 'purge failed; retrying later' },
  });
  return { start: () => poller.start(), stop: () => poller.stop() };
}
