import { readFileSync } from 'node:fs';
import { type AbiItem, toFunctionSelector } from 'viem';
import { formatAbiItem } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { compileContract } from '../../test/solidity.ts';
import { batchAccountArtifact } from './batch-account-artifact.ts';

const SOURCE = new URL('./contracts/BatchAccount.sol', import.meta.url);

function signatures(abi: readonly AbiItem[]): string[] {
  return abi
    .filter((item) => item.type === 'function' || item.type === 'error')
    .map((item) => formatAbiItem(item));
}

describe('the shipped BatchAccount artifact', () => {
  const compiled = compileContract(readFileSync(SOURCE, 'utf8'), 'BatchAccount');

  it('is what compiling the source gives (else run scripts/build-batch-account.ts)', () => {
    expect(batchAccountArtifact.bytecode).toBe(compiled.bytecode);
    expect(batchAccountArtifact.abi).toEqual(compiled.abi);
  });

  it('runs batches of (target, value, data) calls, sent by the owner or relayed signed', () => {
    expect(signatures(compiled.abi)).toEqual(
      expect.arrayContaining([
        'executeBatch((address,uint256,bytes)[])',
        'executeBatchSigned((address,uint256,bytes)[],uint256,bytes)',
        'batchHash((address,uint256,bytes)[],uint256,uint256)',
        'owner()',
        'nonce()',
      ]),
    );
    expect(toFunctionSelector('executeBatch((address,uint256,bytes)[])')).toBe('0x34fcd5be');
  });
});
