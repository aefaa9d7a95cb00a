import { type Address, type Hex, isHex, verifyTypedData } from 'viem';
import { permitOf, type RecurringPayoutRow } from './store.ts';

/** Half the secp256k1 order: OpenZeppelin's ECDSA refuses a larger `s` (malleable signatures). */
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/**
 * The payer's signature over the schedule's permit, in the form the contract takes it
 * (65 bytes, `v` 27 or 28, low `s`), or null when it is no such signature by the payer. Only
 * what the contract would accept is accepted here, so an active schedule never fails on
 * `__BadSignature`. A `v` of 0 or 1 (some wallets' yParity) is turned into 27 or 28.
 */
export async function verifyPermitSignature(
  row: RecurringPayoutRow,
  signature: string,
): Promise<Hex | null> {
  if (!isHex(signature) || signature.length !== 2 + 65 * 2) return null;
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  let v = Number.parseInt(signature.slice(130), 16);
  if (v === 0 || v === 1) v += 27;
  if ((v !== 27 && v !== 28) || s === 0n || s > HALF_ORDER) return null;
  const normalised = `${signature.slice(0, 130)}${v.toString(16)}`.toLowerCase() as Hex;
  try {
    const valid = await verifyTypedData({
      address: row.payer as Address,
      ...permitOf(row),
      signature: normalised,
    });
    return valid ? normalised : null;
  } catch {
    return null;
  }
}
