import { type Address, keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAFE_1_4_1 } from '../chains/contracts.ts';
import { safeAbi } from '../payments/safe/abi.ts';
import { type LocalChain, startLocalChain } from './chain.ts';
import { createSafeCall, safeArtifact } from './safe.ts';

let chain: LocalChain;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 8453 });
});
afterAll(async () => {
  await chain.close();
});

const OWNER: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('Safe 1.4.1 on the local chain', () => {
  it('runs the published runtime code at each canonical address', async () => {
    for (const [name, address] of Object.entries(SAFE_1_4_1)) {
      const code = await chain.client.getCode({ address });
      const published = safeArtifact(name as keyof typeof SAFE_1_4_1).deployedBytecode;
      expect(code && keccak256(code), name).toBe(keccak256(published));
    }
  });

  it('leaves the singletons as their constructor does: threshold 1, so never set up', async () => {
    for (const singleton of [SAFE_1_4_1.safeSingleton, SAFE_1_4_1.safeL2Singleton]) {
      expect(
        await chain.client.readContract({
          address: singleton,
          abi: safeAbi,
          functionName: 'getThreshold',
        }),
      ).toBe(1n);
      await expect(
        chain.client.simulateContract({
          address: singleton,
          abi: safeAbi,
          functionName: 'setup',
          args: [[OWNER], 1n, OWNER, '0x', OWNER, OWNER, 0n, OWNER],
          account: OWNER,
        }),
      ).rejects.toThrow(/GS200/);
    }
  });
});

describe('createSafeCall', () => {
  it.each([
    [[], 1, 'a Safe needs at least one owner'],
    [[OWNER, OWNER.toLowerCase()], 1, 'the owners must differ'],
    [[OWNER], 2, 'the threshold must be from 1 to 1 (the number of owners)'],
    [[OWNER], 0, 'the threshold must be from 1 to 1 (the number of owners)'],
  ])('refuses owners %j with threshold %i', (owners, threshold, message) => {
    expect(() => createSafeCall({ owners: owners as Address[], threshold, saltNonce: 0n })).toThrow(
      message,
    );
  });
});
