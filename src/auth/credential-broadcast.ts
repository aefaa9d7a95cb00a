import type { Redis as RedisClient } from 'ioredis';
import type { Logger } from 'pino';
import { randomHex } from '../base/random-pool.ts';
import { forgetCredentials, onCredentialsChanged } from '../http/credential-cache.ts';

/** Where instances tell each other that a credential changed. */
const CREDENTIALS_CHANNEL = 'payreq:credentials-changed';
/** While Redis is unreachable, its outage is logged at most this often. */
const OUTAGE_LOG_INTERVAL_MS = 60_000;

export interface CredentialBroadcast {
  close(): Promise<void>;
}

/**
 * With Redis, a key revoked or a client ID changed through one instance takes effect on every
 * instance at once, not within `CREDENTIAL_CACHE_MS`: each change made here is published, and
 * each change published by another instance (or the CLI) makes this one forget the
 * credentials it holds. While Redis is unreachable, the cache's lifetime still bounds how long a
 * change takes. The message names only its sender, never a credential. Redis pub/sub spans its
 * numbered databases: deployments sharing one Redis server also share the channel (a change in
 * one makes the others look their credentials up again, nothing more).
 */
export async function startCredentialBroadcast(options: {
  readonly url: string;
  readonly logger: Pick<Logger, 'warn'>;
  /** Another channel than `CREDENTIALS_CHANNEL` (tests). */
  readonly channel?: string;
  readonly now?: () => number;
}): Promise<CredentialBroadcast> {
  const { Redis } = await import('ioredis');
  const channel = options.channel ?? CREDENTIALS_CHANNEL;
  const now = options.now ?? Date.now;
  const instance = randomHex(8);
  let warnedAt: number | null = null;
  const warn = (error: unknown) => {
    if (warnedAt !== null && now() - warnedAt < OUTAGE_LOG_INTERVAL_MS) return;
    warnedAt = now();
    options.logger.warn(
      { err: { message: error instanceof Error ? error.message : String(error) } },
      'credential broadcast: Redis unavailable; changes reach other instances within the cache lifetime',
    );
  };
  const recovered = () => {
    if (warnedAt === null) return;
    warnedAt = null;
    options.logger.warn({}, 'credential broadcast: Redis answers again');
  };
  const publisher = new Redis(options.url, { maxRetriesPerRequest: 0 });
  const subscriber = new Redis(options.url);
  publisher.on('error', warn);
  subscriber.on('error', warn);
  subscriber.on('ready', recovered);
  subscriber.on('message', (_channel: string, sender: string) => {
    if (sender !== instance) forgetCredentials();
  });
  // Not awaited: a Redis that is down must not hold the start. ioredis subscribes once it
  // connects, and again after each reconnection; a change missed meanwhile ages out.
  subscriber.subscribe(channel).catch(warn);
  const stop = onCredentialsChanged(() => {
    publisher.publish(channel, instance).catch(warn);
  });
  return {
    async close() {
      stop();
      await Promise.all([disconnect(subscriber), disconnect(publisher)]);
    },
  };
}

/**
 * Ends a connection without waiting on a Redis that is down: `quit()` queues behind whatever
 * waits for a connection (a subscription, say) and would never settle.
 */
async function disconnect(client: RedisClient): Promise<void> {
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  await client.quit().then(
    () => undefined,
    () => client.disconnect(),
  );
}

/** For one-shot processes (the CLI): tells the instances sharing Redis that credentials changed. */
export async function announceCredentialChange(
  url: string,
  channel = CREDENTIALS_CHANNEL,
): Promise<void> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    maxRetriesPerRequest: 0,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  // Kept to report what really failed: ioredis rejects the command with "Connection is closed".
  let failure: unknown;
  client.on('error', (error: unknown) => {
    failure ??= error;
  });
  try {
    await client.connect();
    await client.publish(channel, randomHex(8));
  } catch (error) {
    throw failure ?? error;
  } finally {
    client.disconnect();
  }
}
