import { describe, expect, it } from 'vitest';
import { evmToTron } from '../chains/tron-address.ts';
import { tronSignedBy } from './siwe.ts';

/**
 * Tron message signing v2, checked against a signature made by TronWeb itself (6.5.1,
 * `tronWeb.trx.signMessageV2(message, key)`, offline) with Hardhat's test key #1
 * (0x59c6…690d), not by our own hashing: a vector our code signed would agree with any
 * mistake in it. The message is not ASCII, so its UTF-8 length (37 bytes) differs from its
 * length in characters (32), the one place the prefix could go wrong.
 */
const TRON_VECTOR = {
  address: 'TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF',
  message: 'payreq Tron vector: Zürich → 5 €',
  signature:
    '0x4423c52ba120cf42ada7ae21127057cc22620f3616b5570b56071b9cdea4f9ae77455eac076a4826516d8f5b2e5bb3649c24574e85ef8aefd9339c37d78f1ef01b',
} as const;

/** Another Hardhat test account (#2), as a Tron address. */
const OTHER_TRON = evmToTron('0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC');

describe('tronSignedBy', () => {
  it('accepts the TronWeb signature for its address and message', async () => {
    expect(new TextEncoder().encode(TRON_VECTOR.message).length).toBe(37);
    expect(TRON_VECTOR.message.length).toBe(32);
    expect(await tronSignedBy(TRON_VECTOR)).toBe(true);
  });

  it('refuses it for another message', async () => {
    expect(
      await tronSignedBy({ ...TRON_VECTOR, message: TRON_VECTOR.message.replace('5 €', '6 €') }),
    ).toBe(false);
  });

  it('refuses it for another address', async () => {
    expect(await tronSignedBy({ ...TRON_VECTOR, address: OTHER_TRON })).toBe(false);
  });

  it('refuses a malformed signature instead of throwing', async () => {
    expect(await tronSignedBy({ ...TRON_VECTOR, signature: '0x1234' })).toBe(false);
  });
});
