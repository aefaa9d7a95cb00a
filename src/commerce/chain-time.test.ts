import { custom, type EIP1193Parameters, numberToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { createTestClock, testConfig } from '../../test/app.ts';
import { createChainClients } from '../chains/clients.ts';
import { createChainRegistry } from '../chains/registry.ts';
import { createChainTime } from './chain-time.ts';

/**
 * The escrow's clock as the commerce operations read it, from a node whose answers a test
 * controls: a block whose time is ahead of the server's, then silence (a fault injected).
 */

const START = new Date('2030-01-01T00:00:00Z');
const AHEAD_MS = 2 * 60 * 60_000;

function node() {
  let silent = false;
  let garbled = false;
  let calls = 0;
  const transport = custom({
    async request({ method }: EIP1193Parameters) {
      if (method === 'eth_chainId') return numberToHex(8453);
      if (method !== 'eth_getBlockByNumber') throw new Error(`not served: ${method}`);
      calls += 1;
      // Silent: never answers (the read's bound ends the wait).
      if (silent) return new Promise(() => {});
      // A result of the wrong shape, as a faulty provider answers.
      if (garbled) return { unexpected: [1, 2] };
      return block((START.getTime() + AHEAD_MS) / 1000);
    },
  });
  return {
    transport,
    silence: () => {
      silent = true;
    },
    garble: () => {
      garbled = true;
    },
    calls: () => calls,
  };
}

function block(seconds: number) {
  const zero = `0x${'0'.repeat(64)}`;
  return {
    number: '0x1',
    hash: zero,
    parentHash: zero,
    timestamp: numberToHex(seconds),
    nonce: '0x0000000000000000',
    sha3Uncles: zero,
    logsBloom: `0x${'0'.repeat(512)}`,
    transactionsRoot: zero,
    stateRoot: zero,
    receiptsRoot: zero,
    miner: `0x${'0'.repeat(40)}`,
    difficulty: '0x0',
    totalDifficulty: '0x0',
    extraData: '0x',
    size: '0x0',
    gasLimit: '0x0',
    gasUsed: '0x0',
    transactions: [],
    uncles: [],
  };
}

/** The chain time of `base` read from a `node()`, asked every 2 s at most, bounded at 50 ms. */
function chainTimeOverNode() {
  const clock = createTestClock(START);
  const config = testConfig();
  const rpc = node();
  const clients = createChainClients({
    config,
    chains: createChainRegistry(config),
    transports: { base: rpc.transport },
  });
  const time = createChainTime({ clients, clock }, { ttlMs: 2_000, timeoutMs: 50 });
  return { clock, rpc, time };
}

describe('the commerce operations’ chain time', () => {
  it('keeps the lead the chain last had while its node is silent, and reads it once per ttl', async () => {
    const { clock, rpc, time } = chainTimeOverNode();

    expect(await time.now('base')).toEqual(new Date(START.getTime() + AHEAD_MS));
    // Within the ttl the lead read stands; the chain's clock runs on with the server's.
    clock.advance(1_000);
    expect(await time.now('base')).toEqual(new Date(START.getTime() + 1_000 + AHEAD_MS));
    expect(rpc.calls()).toBe(1);

    // The node goes silent: past the ttl, the read gives up after its bound and the chain's
    // clock is still two hours ahead of the server's, not the server's own.
    rpc.silence();
    clock.advance(1_000);
    expect(await time.now('base')).toEqual(new Date(START.getTime() + 2_000 + AHEAD_MS));
    expect(rpc.calls()).toBe(2);
  });

  it('keeps the lead the chain last had while its node answers blocks of the wrong shape', async () => {
    const { clock, rpc, time } = chainTimeOverNode();
    expect(await time.now('base')).toEqual(new Date(START.getTime() + AHEAD_MS));

    rpc.garble();
    clock.advance(2_000);
    expect(await time.now('base')).toEqual(new Date(START.getTime() + 2_000 + AHEAD_MS));
    expect(rpc.calls()).toBe(2);
  });

  it('is the server’s clock on a network with no RPC here', async () => {
    const clock = createTestClock(START);
    const config = testConfig();
    const clients = createChainClients({ config, chains: createChainRegistry(config) });
    const time = createChainTime({ clients, clock });
    expect(await time.now('base')).toEqual(START);
  });
});
