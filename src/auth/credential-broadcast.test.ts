import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../clock.ts';
import {
  announceCredentialChange,
  CREDENTIALS_CHANNEL,
  type CredentialBroadcast,
  startCredentialBroadcast,
} from './credential-broadcast.ts';
import { createCredentialCache, credentialsChanged } from './credential-cache.ts';

/** The broadcast over a real Redis: what another process announces, this one forgets at once. */

const REDIS_URL = 'redis://127.0.0.1:6379/13';
const warnings: unknown[] = [];
let broadcast: CredentialBroadcast;
let listener: Redis;
const heard: string[] = [];

beforeAll(async () => {
  broadcast = await startCredentialBroadcast({
    url: REDIS_URL,
    logger: { warn: (...args: unknown[]) => warnings.push(args) } as never,
  });
  listener = new Redis(REDIS_URL);
  listener.on('message', (_channel: string, message: string) => heard.push(message));
  await listener.subscribe(CREDENTIALS_CHANNEL);
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
    await announceCredentialChange(REDIS_URL);
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
});
