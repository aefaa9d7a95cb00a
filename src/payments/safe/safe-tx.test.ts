import { hashStruct, keccak256, toHex, zeroAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { SAFE_TX_TYPES, safeTxHash } from './safe-tx.ts';

describe('safeTxHash', () => {
  it('hashes under the SafeTx type of contracts.md §10.2', () => {
    const typeString =
      'SafeTx(address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce)';
    expect(keccak256(toHex(typeString))).toBe(
      '0xbb8310d486368db6bd6f849402fdd73ad53d316b5a4b2644ad6efe0f941286d8',
    );
    const tx = {
      to: '0x9641d764fc13c8B624c04430C7356C1C7C8102e2',
      value: 0n,
      data: '0x',
      operation: 1,
      safeTxGas: 0n,
      baseGas: 0n,
      gasPrice: 0n,
      gasToken: zeroAddress,
      refundReceiver: zeroAddress,
      nonce: 3n,
    } as const;
    // The struct's hash starts from that typehash: the types written here are that string.
    expect(hashStruct({ types: SAFE_TX_TYPES, primaryType: 'SafeTx', data: tx })).toBe(
      keccak256(
        `0xbb8310d486368db6bd6f849402fdd73ad53d316b5a4b2644ad6efe0f941286d8${[
          tx.to.slice(2).toLowerCase().padStart(64, '0'),
          '0'.repeat(64),
          keccak256('0x').slice(2),
          '1'.padStart(64, '0'),
          '0'.repeat(64 * 3),
          '0'.repeat(64 * 2),
          '3'.padStart(64, '0'),
        ].join('')}`,
      ),
    );
    expect(safeTxHash(1, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', tx)).toMatchInlineSnapshot(
      `"0x6aea2437d04c410fd794cf16a26bfdc7ce1cf0e260daf3489d21af5ff989f94e"`,
    );
  });
});
