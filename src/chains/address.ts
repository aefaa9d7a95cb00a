import { type Address, getAddress, zeroAddress } from 'viem';
import { evmToTron, isTronAddress } from './tron-address.ts';

/**
 * The one reader of wallet and contract addresses at the edge, for both chain kinds. EVM
 * addresses come back checksummed (EIP-55); one written in mixed case must carry a valid
 * checksum, since a typo in a mixed-case address is exactly what the checksum exists to catch,
 * while all-lower-case (or all-upper-case) input has none to check. Tron addresses are base58
 * with their own checksum. The zero address moves money to nowhere, so it is refused unless a
 * caller says it only searches.
 */

export type AddressKind = 'evm' | 'tron';

export type ParsedAddress =
  | { readonly kind: 'evm'; readonly address: Address }
  | { readonly kind: 'tron'; readonly address: string };

type AddressProblem = 'malformed' | 'bad_checksum' | 'zero_address';

export type AddressResult =
  | ({ readonly ok: true } & ParsedAddress)
  | { readonly ok: false; readonly problem: AddressProblem; readonly message: string };

const EVM_PATTERN = /^0x[0-9a-fA-F]{40}$/;
const TRON_ZERO = evmToTron(zeroAddress);

export const ADDRESS_MESSAGES = {
  evm: 'must be an EVM address (0x followed by 40 hex digits)',
  tron: 'must be a Tron address (T…)',
  any: 'must be an EVM address (0x followed by 40 hex digits) or a Tron address (T…)',
  checksum:
    'has an invalid EIP-55 checksum: write the address in all lower case or with its correct checksum',
  zero: 'must not be the zero address',
} as const;

export interface ParseAddressOptions {
  /** Only this kind is accepted; both when absent. */
  readonly kind?: AddressKind | undefined;
  /** Accept the zero address (searches and filters, never money). */
  readonly allowZero?: boolean | undefined;
}

export function parseAddress(value: string, options: ParseAddressOptions = {}): AddressResult {
  const wanted = options.kind;
  const malformed = (): AddressResult => ({
    ok: false,
    problem: 'malformed',
    message: ADDRESS_MESSAGES[wanted ?? 'any'],
  });
  let parsed: ParsedAddress;
  if (wanted !== 'tron' && EVM_PATTERN.test(value)) {
    const checksummed = getAddress(value);
    const digits = value.slice(2);
    const uniformCase = digits === digits.toLowerCase() || digits === digits.toUpperCase();
    if (!uniformCase && checksummed !== value) {
      return { ok: false, problem: 'bad_checksum', message: ADDRESS_MESSAGES.checksum };
    }
    parsed = { kind: 'evm', address: checksummed };
  } else if (wanted !== 'evm' && isTronAddress(value)) {
    parsed = { kind: 'tron', address: value };
  } else {
    return malformed();
  }
  if (!options.allowZero && (parsed.address === zeroAddress || parsed.address === TRON_ZERO)) {
    return { ok: false, problem: 'zero_address', message: ADDRESS_MESSAGES.zero };
  }
  return { ok: true, ...parsed };
}

/** The address in its canonical form, or null when `parseAddress` would refuse it. */
export function canonicalAddress(value: string, options: ParseAddressOptions = {}): string | null {
  const result = parseAddress(value, options);
  return result.ok ? result.address : null;
}

/**
 * The form addresses are compared in, as the database's `*_key` columns hold them: an EVM
 * address lower-cased (its checksum is display only), a Tron address as it is (base58, where
 * case is meaning).
 */
export function addressKey(address: ParsedAddress): string {
  return address.kind === 'evm' ? address.address.toLowerCase() : address.address;
}

/** The wallet type an address format says, with the address in its canonical form. */
export function detectWallet(address: string): { address: string; walletType: AddressKind } | null {
  const parsed = parseAddress(address.trim());
  return parsed.ok ? { address: parsed.address, walletType: parsed.kind } : null;
}
