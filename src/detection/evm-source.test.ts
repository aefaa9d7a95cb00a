import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChainBehindProxy,
  chainBehindFaultyRpc,
  type RpcFault,
} from '../../test/faulty-rpc.ts';
import { createEvmSource } from './evm-source.ts';
import type { BlockSource } from './types.ts';

/**
 * What the indexer asks of an EVM node's blocks, through a proxy that garbles the node's
 * answers: a block hash is the node's own or a failure. The indexer takes a hash that differs
 * from the one it remembers for a fork, and takes back the payments recorded above it, so a
 * wrong-shaped answer (no hash at all) taken for one made it record them again, and their
 * webhooks went out twice.
 */

let world: ChainBehindProxy;
let source: BlockSource;

beforeAll(async () => {
  world = await chainBehindFaultyRpc();
  const a = world.chain.addresses;
  source = createEvmSource({
    network: 'base',
    client: world.client,
    contracts: {
      erc20FeeProxy: a.erc20FeeProxy,
      ethFeeProxy: a.ethFeeProxy,
      erc20ConversionProxy: null,
      ethConversionProxy: null,
      chainlinkConversionPath: null,
      batchPayments: a.batchPayments,
    },
  });
  await world.chain.provider.request({ method: 'evm_mine' });
});

afterAll(() => world.close());

describe("an EVM source's block hashes", () => {
  it("are the node's own while it answers", async () => {
    world.proxy.set('pass');
    const block = await world.chain.client.getBlock({ blockNumber: 1n });
    expect(await source.blockHash(1n)).toBe(block.hash);
  });

  it.each<RpcFault>(['wrong_result', 'rpc_error', 'not_json'])(
    'fail, never come back empty, when the node answers %s',
    async (fault) => {
      world.proxy.set(fault);
      const before = world.proxy.answered[fault];
      await expect(source.blockHash(1n)).rejects.toThrow();
      expect(world.proxy.answered[fault]).toBeGreaterThan(before);
    },
  );

  it('fail for a block the node does not have yet', async () => {
    world.proxy.set('pass');
    const latest = await world.chain.client.getBlockNumber();
    await expect(source.blockHash(latest + 100n)).rejects.toThrow();
  });
});
