import { bytesTopic, keccak256 } from '../base/keccak.ts';
import { randomHex } from '../base/random-pool.ts';

/**
 * Request ids and payment references, derived the way Request Network does (contracts.md §7):
 * the reference is the last 8 bytes of keccak256(lowercase(requestId + salt + paymentAddress)).
 * On chain it travels as `bytes` and is indexed as keccak256 of those 8 bytes.
 */

/**
 * `01` + 64 hex digits, the shape of a Request id. Ours name no on-chain request: 12 digits of
 * the millisecond it was made, so that ids sort by time and a new one goes to the right edge of
 * their unique index (where a random one touched any page of it), then 26 random bytes.
 */
export function mintRequestId(time: number = Date.now()): string {
  return `01${time.toString(16).padStart(12, '0')}${randomHex(26)}`;
}

/** The payment-network salt: 8 random bytes as 16 hex digits. */
export function mintSalt(): string {
  return randomHex(8);
}

/** 16 hex digits, no `0x`. */
export function paymentReference(requestId: string, salt: string, paymentAddress: string): string {
  const input = Buffer.from(`${requestId}${salt}${paymentAddress}`.toLowerCase(), 'utf8');
  return Buffer.from(keccak256(input).subarray(-8)).toString('hex');
}

/** The on-chain `bytes` argument and the topic it is indexed under. */
export function referenceBytes(reference: string): `0x${string}` {
  return `0x${reference}`;
}

export function referenceTopic(reference: string): `0x${string}` {
  return bytesTopic(reference);
}
