import { zeroAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { ADDRESS_MESSAGES, parseAddress } from './address.ts';
import { evmToTron } from './tron-address.ts';

const CHECKSUMMED = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TRON = evmToTron(CHECKSUMMED);

describe('parseAddress', () => {
  it('accepts a checksummed, an all-lower-case and an all-upper-case EVM address, checksummed', () => {
    for (const input of [
      CHECKSUMMED,
      CHECKSUMMED.toLowerCase(),
      `0x${CHECKSUMMED.slice(2).toUpperCase()}`,
    ]) {
      expect(parseAddress(input), input).toEqual({ ok: true, kind: 'evm', address: CHECKSUMMED });
    }
  });

  it('refuses a mixed-case EVM address whose capitals are not its checksum', () => {
    // One letter's case flipped: a typo the checksum exists to catch.
    const typo = CHECKSUMMED.replace('C51812', 'c51812');
    expect(parseAddress(typo)).toEqual({
      ok: false,
      problem: 'bad_checksum',
      message: ADDRESS_MESSAGES.checksum,
    });
  });

  it('refuses the zero address unless a search asks for it, in both forms', () => {
    for (const zero of [zeroAddress, evmToTron(zeroAddress)]) {
      expect(parseAddress(zero), zero).toMatchObject({ ok: false, problem: 'zero_address' });
      expect(parseAddress(zero, { allowZero: true }), zero).toMatchObject({ ok: true });
    }
  });

  it('reads Tron addresses as they are, and refuses a broken base58 checksum', () => {
    expect(parseAddress(TRON)).toEqual({ ok: true, kind: 'tron', address: TRON });
    const broken = `${TRON.slice(0, -1)}${TRON.endsWith('a') ? 'b' : 'a'}`;
    expect(parseAddress(broken)).toMatchObject({ ok: false, problem: 'malformed' });
  });

  it('holds a field to one kind, with the message for that kind', () => {
    expect(parseAddress(TRON, { kind: 'evm' })).toEqual({
      ok: false,
      problem: 'malformed',
      message: ADDRESS_MESSAGES.evm,
    });
    expect(parseAddress(CHECKSUMMED, { kind: 'tron' })).toEqual({
      ok: false,
      problem: 'malformed',
      message: ADDRESS_MESSAGES.tron,
    });
    expect(parseAddress('0x1234')).toMatchObject({ message: ADDRESS_MESSAGES.any });
    expect(parseAddress(` ${CHECKSUMMED}`)).toMatchObject({ ok: false, problem: 'malformed' });
  });
});
