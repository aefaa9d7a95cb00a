import { describe, expect, it } from 'vitest';
import { createTestClock } from '../../test/app.ts';
import {
  CREDENTIAL_CACHE_MS,
  createCredentialCache,
  credentialsChanged,
} from './credential-cache.ts';

const keep = (value: string) => value !== 'unknown';

describe('credential cache', () => {
  it('answers from memory within its lifetime and asks again after it', async () => {
    const clock = createTestClock();
    const cache = createCredentialCache({ clock });
    let loads = 0;
    const load = async () => `found ${++loads}`;
    expect(await cache.get('apiKey:a', load, keep)).toBe('found 1');
    clock.advance(CREDENTIAL_CACHE_MS - 1);
    // A hit answers at once, without a promise.
    expect(cache.get('apiKey:a', load, keep)).toBe('found 1');
    clock.advance(1);
    expect(await cache.get('apiKey:a', load, keep)).toBe('found 2');
  });

  it('keeps nothing that did not resolve', async () => {
    const cache = createCredentialCache({ clock: createTestClock() });
    expect(await cache.get('apiKey:x', async () => 'unknown', keep)).toBe('unknown');
    expect(await cache.get('apiKey:x', async () => 'made since', keep)).toBe('made since');
    expect(cache.size()).toBe(1);
  });

  it('sweeps what has outlived its lifetime, keys nobody asks for again included', async () => {
    const clock = createTestClock();
    const cache = createCredentialCache({ clock });
    for (const key of ['apiKey:a', 'apiKey:b', 'apiKey:c']) {
      await cache.get(key, async () => 'found', keep);
    }
    expect(cache.size()).toBe(3);
    clock.advance(CREDENTIAL_CACHE_MS);
    await cache.get('apiKey:d', async () => 'found', keep);
    expect(cache.size()).toBe(1);
  });

  it('forgets everything at once when credentials change in this process', async () => {
    const cache = createCredentialCache({ clock: createTestClock() });
    await cache.get('apiKey:a', async () => 'before', keep);
    credentialsChanged();
    expect(await cache.get('apiKey:a', async () => 'after', keep)).toBe('after');
  });
});
