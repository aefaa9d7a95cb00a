import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from './secret-box.ts';

describe('secret box', () => {
  const box = createSecretBox(randomBytes(32));

  it('round-trips and never stores the plaintext', () => {
    const sealed = box.seal('whsec_top_secret', 'row-1');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('whsec_top_secret');
    expect(box.open(sealed, 'row-1')).toBe('whsec_top_secret');
    expect(box.seal('same', 'row-1')).not.toBe(box.seal('same', 'row-1'));
  });

  it('refuses a tampered ciphertext, another context, or another key', () => {
    const sealed = box.seal('value', 'row-1');
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3] ?? '', 'base64url');
    body[0] = (body[0] ?? 0) ^ 1;
    const tampered = [parts[0], parts[1], parts[2], body.toString('base64url')].join('.');
    expect(() => box.open(tampered, 'row-1')).toThrow();
    expect(() => box.open(sealed, 'row-2')).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed, 'row-1')).toThrow();
    expect(() => box.open('plain text')).toThrow('not a sealed secret');
  });
});
