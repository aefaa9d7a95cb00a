import { randomBytes } from 'node:crypto';
import { keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { mintRequestId, mintSalt, paymentReference, referenceTopic } from './references.ts';

describe('payment references', () => {
  it("match Request's test vector", () => {
    expect(paymentReference('01847474747474', '8d03ea7', '0x000001')).toBe('a0098add01acc736');
  });

  it('index on chain as keccak256 of the 8 raw bytes (contracts.md §1.1)', () => {
    expect(referenceTopic('a0098add01acc736')).toMatch(/^0xc7c539ab[0-9a-f]+47e1eb90$/);
  });

  it('ignore the case of the inputs, as the SDK lowercases the whole string', () => {
    const id = mintRequestId();
    expect(paymentReference(id.toUpperCase(), 'ABCDEF0123456789', '0xAbC')).toBe(
      paymentReference(id, 'abcdef0123456789', '0xabc'),
    );
  });

  it('hash as viem does, over one block and several', () => {
    for (const length of [0, 1, 135, 136, 137, 300]) {
      const address = `0x${randomBytes(length).toString('hex')}`;
      const id = mintRequestId();
      const salt = mintSalt();
      const input = new TextEncoder().encode(`${id}${salt}${address}`);
      const reference = paymentReference(id, salt, address);
      expect(reference).toBe(keccak256(input).slice(-16));
      expect(referenceTopic(reference)).toBe(keccak256(`0x${reference}`));
    }
  });

  it('mints ids that sort by the millisecond they were made', () => {
    const ids = [1, 2, 4096, 1_700_000_000_000, 2 ** 48 - 1].map((time) => mintRequestId(time));
    expect([...ids].sort()).toEqual(ids);
    expect(mintRequestId(0x0123_4567_89ab)).toMatch(/^010123456789ab[0-9a-f]{52}$/);
    // The rest is random: two ids of one millisecond differ.
    expect(mintRequestId(5)).not.toBe(mintRequestId(5));
  });

  it('mints ids and salts of the right shape', () => {
    expect(mintRequestId()).toMatch(/^01[0-9a-f]{64}$/);
    expect(mintSalt()).toMatch(/^[0-9a-f]{16}$/);
    expect(mintRequestId()).not.toBe(mintRequestId());
  });
});
