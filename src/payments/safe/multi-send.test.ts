import { decodeFunctionData, hexToBigInt, sliceHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { multiSendAbi } from './abi.ts';
import { encodeMultiSend } from './multi-send.ts';

const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const PROXY = '0x370DE27fdb7D1Ff1e1BaA7D11c5820a324Cf623C';

describe('encodeMultiSend', () => {
  it('packs each call as operation, to, value, data length and data, one after the other', () => {
    const approve =
      `0x095ea7b3${PROXY.slice(2).toLowerCase().padStart(64, '0')}${'c28cb0'.padStart(64, '0')}` as const;
    const encoded = encodeMultiSend([
      { to: TOKEN, data: approve, value: '0x0', chainId: 1 },
      { to: PROXY, data: '0xdeadbeef', value: '0x3e8', chainId: 1 },
    ]);
    expect(encoded).toMatchInlineSnapshot(
      `"0x8d80ff0a000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000f200a0b86991c6218b36c1d19d4a2e9eb0ce3606eb4800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000044095ea7b3000000000000000000000000370de27fdb7d1ff1e1baa7d11c5820a324cf623c0000000000000000000000000000000000000000000000000000000000c28cb000370de27fdb7d1ff1e1baa7d11c5820a324cf623c00000000000000000000000000000000000000000000000000000000000003e80000000000000000000000000000000000000000000000000000000000000004deadbeef0000000000000000000000000000"`,
    );
    const [packed] = decodeFunctionData({ abi: multiSendAbi, data: encoded }).args;
    // The second call starts after the first's 85 bytes of header and its 68 bytes of data.
    const second = 85 + 68;
    expect(sliceHex(packed, second, second + 1)).toBe('0x00');
    expect(sliceHex(packed, second + 1, second + 21)).toBe(PROXY.toLowerCase());
    expect(hexToBigInt(sliceHex(packed, second + 21, second + 53))).toBe(1000n);
    expect(hexToBigInt(sliceHex(packed, second + 53, second + 85))).toBe(4n);
    expect(sliceHex(packed, second + 85)).toBe('0xdeadbeef');
  });

  it('refuses an empty list: a Safe transaction that pays nothing', () => {
    expect(() => encodeMultiSend([])).toThrow('a multiSend needs at least one call');
  });
});
