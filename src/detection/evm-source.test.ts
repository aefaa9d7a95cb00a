import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultyRpc, type RpcFault, startFaultyRpc } from '../../test/faulty-rpc.ts';
import { type LocalChain, startLocalChain } from '../sandbox/chain.ts';
import { serveJsonRpc } from '../sandbox/rpc-server.ts';
import { createEvmSource } from './evm-source.ts';
import type { BlockSource } from './types.ts';

/**
 * What the indexer asks of an EVM node's blocks, through a proxy that garbles the node's
 * answers: a block hash is the node's own or a failure. The indexer takes a hash that differs
 * from the one it remembers for a fork, and takes back the payments recorded above it, so a
 * wrong-shaped answer (no hash at all) taken for one made it record them again, and their
 * webhooks went out twice.
 */

let chain: LocalChain;
let rpc: Awaited<ReturnType<typeof serveJsonRpc>>;
let proxy: FaultyRpc;
let source: BlockSource;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 8453 });
  rpc = await serveJsonRpc(chain.provider);
  proxy = await startFaultyRpc(rpc.url);
  const a = chain.addresses;
  source = createEvmSource({
    network: 'base',
    client: createPublicClient({ transport: http(proxy.url, { retryCount: 0 }) }),
    contracts: {
      erc20FeeProxy: a.erc20FeeProxy,
      ethFeeProxy: a.ethFeeProxy,
      erc20ConversionProxy: null,
      ethConversionProxy: null,
      chainlinkConversionPath: null,
      batchPayments: a.batchPayments,
    },
  });
  await chain.provider.request({ method: 'evm_mine' });
});

afterAll(async () => {
  await proxy.close();
  await rpc.close();
  await chain.close();
});

describe("an EVM source's block hashes", () => {
  it("are the node's own while it answers", async () => {
    proxy.set('pass');
    const block = await chain.client.getBlock({ blockNumber: 1n });
    expect(await source.blockHash(1n)).toBe(block.hash);
  });

  it.each<RpcFault>(['wrong_result', 'rpc_error', 'not_json'])(
    'fail, never come back empty, when the node answers %s',
    async (fault) => {
      proxy.set(fault);
      const before = proxy.answered[fault];
      await expect(source.blockHash(1n)).rejects.toThrow();
      expect(proxy.answered[fault]).toBeGreaterThan(before);
    },
  );

  it('fail for a block the node does not have yet', async () => {
    proxy.set('pass');
    const latest = await chain.client.getBlockNumber();
    await expect(source.blockHash(latest + 100n)).rejects.toThrow();
  });
});
