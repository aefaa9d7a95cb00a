import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { type Address, getAddress } from 'viem';

/**
 * Tron addresses: base58check of `0x41 ‖ 20 bytes`. The 20 bytes are the same account an EVM
 * key controls, which is how Tron calls run on an EVM and how signatures are checked.
 */

const base58check = createBase58check(sha256);
const TRON_PREFIX = 0x41;
const TRON_PATTERN = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

export function isTronAddress(value: string): boolean {
  if (!TRON_PATTERN.test(value)) return false;
  try {
    const bytes = base58check.decode(value);
    return bytes.length === 21 && bytes[0] === TRON_PREFIX;
  } catch {
    return false;
  }
}

/** `T…` → the checksummed 20-byte EVM form. Throws on an invalid address. */
export function tronToEvm(value: string): Address {
  if (!isTronAddress(value)) throw new Error(`not a Tron address: ${value}`);
  const bytes = base58check.decode(value);
  return getAddress(`0x${Buffer.from(bytes.subarray(1)).toString('hex')}`);
}

export function evmToTron(address: string): string {
  const hex = getAddress(address).slice(2);
  return base58check.encode(Uint8Array.from([TRON_PREFIX, ...Buffer.from(hex, 'hex')]));
}
