import { type Address, getAddress, keccak256 } from 'viem';
import { type AddressResult, canonicalAddress, parseAddress } from '../chains/address.ts';
import { TRON_CHAIN_ID } from '../chains/networks.ts';
import { tronToEvm } from '../chains/tron-address.ts';

/**
 * Payee destination ids: an ERC-7930 interoperable name for the payee wallet, then the token:
 * `<wallet>@eip155:<chainId>#<checksum>:<tokenAddress>`. The checksum is the first 4 bytes of
 * keccak256 over the v1 binary interop address without its version field. Tron uses chain id
 * 728126428 in the eip155 namespace, base58 addresses in the text and their 20-byte form in
 * the binary.
 */

/** What a destination names as its token when it is paid in the network's native currency. */
export const NATIVE_TOKEN_ADDRESS: Address = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';

const EIP155_CHAIN_TYPE = '0000';
const PATTERN = /^([^@\s]+)@eip155:([1-9]\d{0,15})#([0-9A-Fa-f]{8}):([^\s:]+)$/;

export interface DestinationId {
  /** The canonical text form. */
  readonly value: string;
  /** Checksummed EVM address, or base58 on Tron. */
  readonly walletAddress: string;
  readonly chainId: number;
  readonly checksum: string;
  /** Checksummed EVM address, base58 on Tron, or NATIVE_TOKEN_ADDRESS. */
  readonly tokenAddress: string;
  /** `0x0001…`: ERC-7930 v1 binary of the wallet on its chain. */
  readonly binaryInteropAddress: `0x${string}`;
  /** `<wallet>@eip155:<chainId>#<checksum>`. */
  readonly humanReadableInteropAddress: string;
}

function chainReference(chainId: number): string {
  let hex = chainId.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return hex;
}

/** The 20 bytes of a wallet, from either address form. */
function addressBytes(wallet: string, chainId: number): string {
  const evm = chainId === TRON_CHAIN_ID ? tronToEvm(wallet) : getAddress(wallet);
  return evm.slice(2).toLowerCase();
}

export function interopBinary(wallet: string, chainId: number): `0x${string}` {
  const reference = chainReference(chainId);
  const length = (reference.length / 2).toString(16).padStart(2, '0');
  return `0x0001${EIP155_CHAIN_TYPE}${length}${reference}14${addressBytes(wallet, chainId)}`;
}

export function interopChecksum(wallet: string, chainId: number): string {
  const withoutVersion = `0x${interopBinary(wallet, chainId).slice(6)}` as const;
  return keccak256(withoutVersion).slice(2, 10).toUpperCase();
}

/** Reads a wallet as an address of its chain's kind (see chains/address.ts for the rules). */
export function parseWallet(wallet: string, chainId: number): AddressResult {
  return parseAddress(wallet, { kind: chainId === TRON_CHAIN_ID ? 'tron' : 'evm' });
}

/** Normalises a wallet for its chain; null when it is not a valid address there. */
export function normaliseWallet(wallet: string, chainId: number): string | null {
  return canonicalAddress(wallet, { kind: chainId === TRON_CHAIN_ID ? 'tron' : 'evm' });
}

export function normaliseToken(token: string, chainId: number): string | null {
  if (token.toLowerCase() === NATIVE_TOKEN_ADDRESS.toLowerCase()) return NATIVE_TOKEN_ADDRESS;
  return normaliseWallet(token, chainId);
}

/** Builds the id; null when the wallet or token is not valid on that chain. */
export function buildDestinationId(
  wallet: string,
  chainId: number,
  token: string,
): DestinationId | null {
  const walletAddress = normaliseWallet(wallet, chainId);
  const tokenAddress = normaliseToken(token, chainId);
  if (walletAddress === null || tokenAddress === null) return null;
  const checksum = interopChecksum(walletAddress, chainId);
  const humanReadableInteropAddress = `${walletAddress}@eip155:${chainId}#${checksum}`;
  return {
    value: `${humanReadableInteropAddress}:${tokenAddress}`,
    walletAddress,
    chainId,
    checksum,
    tokenAddress,
    binaryInteropAddress: interopBinary(walletAddress, chainId),
    humanReadableInteropAddress,
  };
}

/** Parses and verifies an id: addresses valid for the chain and a checksum that matches. */
export function parseDestinationId(value: string): DestinationId | null {
  const match = PATTERN.exec(value.trim());
  if (!match) return null;
  const [, wallet = '', chain = '', checksum = '', token = ''] = match;
  const chainId = Number(chain);
  if (!Number.isSafeInteger(chainId)) return null;
  // The id carries its own checksum over the wallet, so its EVM parts are read in any case
  // (as an identifier, not an address typed by hand); Tron's base58 is case-sensitive.
  const evm = chainId !== TRON_CHAIN_ID;
  const parsed = buildDestinationId(
    evm ? wallet.toLowerCase() : wallet,
    chainId,
    evm ? token.toLowerCase() : token,
  );
  if (parsed === null || parsed.checksum !== checksum.toUpperCase()) return null;
  return parsed;
}
