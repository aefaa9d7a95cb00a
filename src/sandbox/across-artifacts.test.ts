import { readFileSync } from 'node:fs';
import { type AbiItem, toEventSelector, toFunctionSelector } from 'viem';
import { formatAbiItem } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { compileContract } from '../../test/solidity.ts';
import { multicallHandlerArtifact, spokePoolArtifact } from './across-artifacts.ts';

const SOURCE = readFileSync(new URL('./contracts/Across.sol', import.meta.url), 'utf8');

function signatures(abi: readonly AbiItem[]): string[] {
  return abi
    .filter((item) => item.type === 'function' || item.type === 'event' || item.type === 'error')
    .map((item) => formatAbiItem(item));
}

describe('the shipped local Across artifacts', () => {
  const spokePool = compileContract(SOURCE, 'SpokePool', { viaIR: true });
  const handler = compileContract(SOURCE, 'MulticallHandler', { viaIR: true });

  it('are what compiling the source gives (else run scripts/build-across.ts)', () => {
    expect(spokePoolArtifact.bytecode).toBe(spokePool.bytecode);
    expect(spokePoolArtifact.abi).toEqual(spokePool.abi);
    expect(multicallHandlerArtifact.bytecode).toBe(handler.bytecode);
    expect(multicallHandlerArtifact.abi).toEqual(handler.abi);
  });

  it('gives SpokePool the selectors and topics of Across V3’s', () => {
    const ours = signatures(spokePool.abi);
    const depositV3 =
      'depositV3(address,address,address,address,uint256,uint256,uint256,address,uint32,uint32,uint32,bytes)';
    const fillV3Relay =
      'fillV3Relay((address,address,address,address,address,uint256,uint256,uint256,uint32,uint32,uint32,bytes),uint256)';
    const deposited =
      'V3FundsDeposited(address,address,uint256,uint256,uint256,uint32,uint32,uint32,uint32,address,address,address,bytes)';
    const filled =
      'FilledV3Relay(address,address,uint256,uint256,uint256,uint256,uint32,uint32,uint32,address,address,address,address,bytes,(address,bytes,uint256,uint8))';
    expect(ours).toEqual(expect.arrayContaining([depositV3, fillV3Relay, deposited, filled]));
    expect(toFunctionSelector(depositV3)).toBe('0x7b939232');
    expect(toFunctionSelector(fillV3Relay)).toBe('0x2e378115');
    expect(toEventSelector(deposited)).toBe(
      '0xa123dc29aebf7d0c3322c8eeb5b999e859f39937950ed31056532713d0de396f',
    );
    expect(toEventSelector(filled)).toBe(
      '0x571749edf1d5c9599318cdbc4e28a6475d65e87fd3b2ddbe1e9a8d5e7a0f0ff7',
    );
  });

  it('gives MulticallHandler Across’s message hook', () => {
    expect(signatures(handler.abi)).toContain(
      'handleV3AcrossMessage(address,uint256,address,bytes)',
    );
    expect(toFunctionSelector('handleV3AcrossMessage(address,uint256,address,bytes)')).toBe(
      '0x3a5be8cb',
    );
  });
});
