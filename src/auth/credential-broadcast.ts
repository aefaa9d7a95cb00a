import type { Logger } from 'pino';
import { randomHex } from '../crypto/random-pool.ts';
import { forgetCredentials, onCredentialsChanged } from './credential-cache.ts';

/** Where instances tell each other that a credential changed. */
export const CREDENTIALS_CHANNEL = 'payreq:credentials-changed';

export interface CredentialBroadcast {
  close(): Promise<void>;
}

/**
 * With Redis, a key revoked or a client ID changed through one instance takes effect on every
 * instance at once, not within `CREDENTIAL_CACHE_MS`: each change made here is published, and
 * each change published by another instance (or the CLI) makes this one forget the
 * credentials it holds. While Redis is unreachable, the cache's lifetime still bounds how long a
 * change takes. The message names only its sender, never a credential.
 */
export async function startCredentialBroadcast(options: {
  readonly url: string;
  readonly logger: Pick<Logger, 'warn'>;
}): Promise<CredentialBroadcast> {
  const { Redis } = await import('ioredis');
  const instance = randomHex(8);
  const warn = (error: unknown) =>
    options.logger.warn(
      { err: { message: error instanceof Error ? error.message : String(error) } },
      'credential broadcast: Redis unavailable; changes reach other instances within the cache lifetime',
    );
  const publisher = new Redis(options.url, { maxRetriesPerRequest: 0 });
  const subscriber = new Redis(options.url);
  publisher.on('error', warn);
  subscriber.on('error', warn);
  subscriber.on('message', (_channel: string, sender: string) => {
    if (sender !== instance) forgetCredentials();
  });
  // Not awaited: a Redis that is down must not hold the start. ioredis subscribes once it
  // connects, and again after each reconnection; a change missed meanwhile ages out.
  subscriber.subscribe(CREDENTIALS_CHANNEL).catch(warn);
  const stop = onCredentialsChanged(() => {
    publisher.publish(CREDENTIALS_CHANNEL, instance).catch(warn);
  });
  return {
    async close() {
      stop();
      await Promise.allSettled([
        subscriber.quit().catch(() => subscriber.disconnect()),
        publisher.quit().catch(() => publisher.disconnect()),
      ]);
    },
  };
}

/** For one-shot processes (the CLI): tells the instances sharing Redis that credentials changed. */
export async function announceCredentialChange(url: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { maxRetriesPerRequest: 0, lazyConnect: true });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.publish(CREDENTIALS_CHANNEL, randomHex(8));
  } finally {
    client.disconnect();
  }
}
