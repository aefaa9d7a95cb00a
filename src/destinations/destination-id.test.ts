import { describe, expect, it } from 'vitest';
import {
  buildDestinationId,
  interopBinary,
  interopChecksum,
  NATIVE_TOKEN_ADDRESS,
  parseDestinationId,
} from './destination-id.ts';

const VITALIK = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

describe('destination ids', () => {
  it('compute the ERC-7930 binary and checksum of its test vector', () => {
    expect(interopBinary(VITALIK, 1)).toBe(
      '0x00010000010114d8da6bf26964af9d7eed9e03e53415d37aa96045',
    );
    expect(interopChecksum(VITALIK, 1)).toBe('4CA88C9C');
  });

  it('build and parse back the canonical form', () => {
    const built = buildDestinationId(VITALIK.toLowerCase(), 8453, USDC_BASE.toLowerCase());
    expect(built?.value).toMatch(
      /^0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045@eip155:8453#[0-9A-F]{8}:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913$/,
    );
    const parsed = parseDestinationId(built?.value ?? '');
    expect(parsed).toEqual(built);
    expect(
      parseDestinationId((built?.value ?? '').toLowerCase().replace('0xd8da', '0xd8dA')),
    ).not.toBeNull();
  });

  it('handle Tron: base58 wallet and token, chain 728126428', () => {
    const built = buildDestinationId(
      'TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF',
      728126428,
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    );
    expect(built?.value).toMatch(
      /^TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF@eip155:728126428#[0-9A-F]{8}:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t$/,
    );
    expect(parseDestinationId(built?.value ?? '')?.walletAddress).toBe(
      'TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF',
    );
    expect(buildDestinationId(VITALIK, 728126428, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBeNull();
  });

  it('accept the native-currency sentinel as token', () => {
    expect(buildDestinationId(VITALIK, 1, NATIVE_TOKEN_ADDRESS.toLowerCase())?.tokenAddress).toBe(
      NATIVE_TOKEN_ADDRESS,
    );
  });

  it.each([
    ['no checksum', `${VITALIK}@eip155:1:${USDC_BASE}`],
    ['wrong checksum', `${VITALIK}@eip155:1#00000000:${USDC_BASE}`],
    ['checksum of another chain', `${VITALIK}@eip155:8453#4CA88C9C:${USDC_BASE}`],
    ['bad wallet', `0x1234@eip155:1#4CA88C9C:${USDC_BASE}`],
    ['bad token', `${VITALIK}@eip155:1#4CA88C9C:0x1234`],
    ['other namespace', `${VITALIK}@solana:1#4CA88C9C:${USDC_BASE}`],
    ['no token', `${VITALIK}@eip155:1#4CA88C9C`],
    ['network:wallet:token form', `base:${VITALIK}:${USDC_BASE}`],
  ])('refuse %s', (_name, value) => {
    expect(parseDestinationId(value)).toBeNull();
  });
});
