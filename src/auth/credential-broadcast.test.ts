import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../base/clock.ts';
import { randomHex } from '../base/random-pool.ts';
import { createCredentialCache, credentialsChanged } from '../http/credential-cache.ts';
import {
  announceCredentialChange,
  type CredentialBroadcast,
  startCredentialBroadcast,
} from './credential-broadcast.ts';

/**
 * The broadcast over a real Redis: what another process announces, this one forgets at once.
 * A channel of this run's own: pub/sub is shared by every database of the Redis server.
 */

const REDIS_URL = 'redis://127.0.0.1:6379/13';
const CHANNEL = `payreq:test:credentials-changed:${randomHex(6)}`;
const warnings: unknown[] = [];
let broadcast: CredentialBroadcast;
let listener: Redis;
const heard: string[] = [];

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  broadcast = await startCredentialBroadcast({
    url: REDIS_URL,
    channel: CHANNEL,
    logger: { warn: (...args: unknown[]) => warnings.push(args) } as never,
  });
  listener = new Redis(REDIS_URL);
  listener.on('message', (_channel: string, message: string) => heard.push(message));
  await listener.subscribe(CHANNEL);
});
afterAll(async () => {
  await broadcast.close();
  await listener.quit();
});

describe('credential broadcast', () => {
  it('forgets what the cache holds once another process announces a change', async () => {
    const cache = createCredentialCache({ clock: systemClock, ttlMs: 60_000 });
    const keep = () => true;
    expect(await cache.get('apiKey:x', async () => 'before', keep)).toBe('before');
    expect(await cache.get('apiKey:x', async () => 'after', keep)).toBe('before');
    await announceCredentialChange(REDIS_URL, CHANNEL);
    await expect
      .poll(() => cache.get('apiKey:x', async () => 'after', keep), { timeout: 2_000 })
      .toBe('after');
    expect(warnings).toEqual([]);
  });

  it('announces each change made here, naming only its sender', async () => {
    heard.length = 0;
    credentialsChanged();
    await expect.poll(() => heard.length, { timeout: 2_000 }).toBe(1);
    expect(heard[0]).toMatch(/^[0-9a-f]{16}$/);
  });

  it('starts and stops at once when Redis is unreachable, and says so once', async () => {
    const said: unknown[] = [];
    const down = await startCredentialBroadcast({
      url: `redis://127.0.0.1:${await closedPort()}`,
      channel: CHANNEL,
      logger: { warn: (...args: unknown[]) => said.push(args) } as never,
    });
    // ioredis retries its connection meanwhile, several times a second.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    credentialsChanged();
    const closing = down.close().then(() => 'closed');
    const waited = new Promise((resolve) => setTimeout(resolve, 1_000, 'still open'));
    expect(await Promise.race([closing, waited])).toBe('closed');
    expect(said).toHaveLength(1);
  });

  it('lets the CLI say why it could not announce', async () => {
    await expect(
      announceCredentialChange(`redis://127.0.0.1:${await closedPort()}`, CHANNEL),
    ).rejects.toThrow(/ECONNREFUSED/);
  });
});
