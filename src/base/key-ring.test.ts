import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyRing } from './key-ring.ts';
import { createSecretBox } from './secret-box.ts';

describe('the key ring', () => {
  const secretKey = randomBytes(32);
  const next = randomBytes(32);

  it('names its key in every ciphertext and opens it bound to its context only', () => {
    const ring = createKeyRing({ defaultKey: secretKey });
    const sealed = ring.seal('Ada', 'payers:1');
    expect(sealed.startsWith(`k1.${ring.currentId}.`)).toBe(true);
    expect(ring.currentId).toMatch(/^sk-[0-9a-f]{12}$/);
    expect(ring.keyIdOf(sealed)).toBe(ring.currentId);
    expect(ring.open(sealed, 'payers:1')).toBe('Ada');
    expect(() => ring.open(sealed, 'payers:2')).toThrow();
  });

  it('digests data under SECRET_KEY: equal for equal data and context, whatever key is current', () => {
    const ring = createKeyRing({ defaultKey: secretKey });
    const rotated = createKeyRing({
      defaultKey: secretKey,
      extra: [{ id: 'next', key: next }],
      currentId: 'next',
    });
    const digest = ring.digest('account 4411', 'bank account:cus_1');
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.digest('account 4411', 'bank account:cus_1')).toBe(digest);
    expect(ring.digest('account 4412', 'bank account:cus_1')).not.toBe(digest);
    expect(ring.digest('account 4411', 'bank account:cus_2')).not.toBe(digest);
    expect(
      createKeyRing({ defaultKey: next }).digest('account 4411', 'bank account:cus_1'),
    ).not.toBe(digest);
  });

  it('gives SECRET_KEY the same id every time, and opens the secret box’s v1 format with it', () => {
    const old = createSecretBox(secretKey).seal('whsec', 'hook-1');
    const ring = createKeyRing({
      defaultKey: secretKey,
      extra: [{ id: 'k2', key: next }],
      currentId: 'k2',
    });
    expect(createKeyRing({ defaultKey: secretKey }).currentId).toBe(ring.ids[1]);
    expect(ring.open(old, 'hook-1')).toBe('whsec');
    expect(ring.keyIdOf(old)).toBe(ring.ids[1]);
  });

  it('seals under the current key and opens what older keys sealed, until they are removed', () => {
    const before = createKeyRing({ defaultKey: secretKey }).seal('Ada', 'c');
    const rotated = createKeyRing({
      defaultKey: secretKey,
      extra: [{ id: 'k2', key: next }],
      currentId: 'k2',
    });
    expect(rotated.open(before, 'c')).toBe('Ada');
    const after = rotated.seal('Ada', 'c');
    expect(rotated.keyIdOf(after)).toBe('k2');
    const without = createKeyRing({
      defaultKey: randomBytes(32),
      extra: [{ id: 'k2', key: next }],
      currentId: 'k2',
    });
    expect(without.open(after, 'c')).toBe('Ada');
    expect(() => without.open(before, 'c')).toThrow(/not given/);
  });

  it('refuses a current key it does not hold, bad ids and twice-given ids', () => {
    expect(() => createKeyRing({ defaultKey: secretKey, currentId: 'nope' })).toThrow(/not one of/);
    expect(() =>
      createKeyRing({ defaultKey: secretKey, extra: [{ id: 'a.b', key: next }] }),
    ).toThrow();
    expect(() =>
      createKeyRing({
        defaultKey: secretKey,
        extra: [
          { id: 'x', key: next },
          { id: 'x', key: next },
        ],
      }),
    ).toThrow(/twice/);
  });
});
