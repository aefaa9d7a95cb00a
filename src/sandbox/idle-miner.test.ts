import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/database.ts';
import { createLogger } from '../base/logger.ts';
import { SANDBOX_NETWORK } from '../chains/networks.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { type LocalChain, startLocalChain } from './chain.ts';
import { createSandboxHost } from './host.ts';
import { createIdleMiner, IDLE_BLOCK_MS } from './idle-miner.ts';
import { serveJsonRpc } from './rpc-server.ts';

/**
 * The sandbox chain mines only when sent a transaction; its owner adds a block whenever none
 * came for a while, so that time-based flows (recurring dates, expiries) move on their own.
 */

const IDLE_MS = 200;
/** The head as the node says now (viem caches it for seconds). */
const headOf = (local: LocalChain) => local.client.getBlockNumber({ cacheTime: 0 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger('info', stream), text: () => lines.join('') };
}

let chain: LocalChain;
let database: DatabaseHandle;
beforeAll(async () => {
  [chain, database] = await Promise.all([
    startLocalChain({ chainId: SANDBOX_NETWORK.chainId }),
    openTestDatabase(),
  ]);
}, 120_000);
afterAll(async () => {
  await chain?.close();
  await database?.close();
});

describe('the idle miner', () => {
  it('mines an empty block when none came for a while, and none once stopped', async () => {
    const { logger, text } = capture();
    const miner = createIdleMiner({ provider: chain.provider, logger, idleMs: IDLE_MS });
    const before = await headOf(chain);
    miner.start();
    try {
      await expect.poll(() => headOf(chain), { timeout: 5_000 }).toBeGreaterThan(before);
      // No transaction sent, none in the block.
      const mined = await chain.client.getBlock({ blockNumber: before + 1n });
      expect(mined.transactions).toEqual([]);
      // And another, the chain being idle still.
      await expect
        .poll(() => headOf(chain), { timeout: 5_000 })
        .toBeGreaterThanOrEqual(before + 2n);
    } finally {
      await miner.stop();
    }
    const stoppedAt = await headOf(chain);
    await sleep(3 * IDLE_MS);
    expect(await headOf(chain)).toBe(stoppedAt);
    expect(text()).not.toContain('failed');
  });

  it('waits for a quiet spell: a block sent meanwhile puts the next idle block off', async () => {
    const idleMs = 5 * IDLE_MS;
    const miner = createIdleMiner({ provider: chain.provider, logger: capture().logger, idleMs });
    miner.start();
    try {
      const start = await headOf(chain);
      // A block every fifth of the idle period: the miner never finds the chain idle.
      for (let i = 0; i < 6; i++) {
        await chain.provider.request({ method: 'evm_mine' });
        await sleep(idleMs / 5);
      }
      expect(await headOf(chain)).toBe(start + 6n);
    } finally {
      await miner.stop();
    }
  });
});

describe('the sandbox host', () => {
  it('mines its chain when idle once started, and stops with close', async () => {
    const { logger, text } = capture();
    const host = await createSandboxHost({
      database,
      logger,
      baseUrl: 'http://127.0.0.1:0',
      serveRpc: (provider) => serveJsonRpc(provider),
      idleBlockMs: IDLE_MS,
    });
    const head = async () =>
      BigInt(String(await host.provider.request({ method: 'eth_blockNumber' })));
    try {
      const before = await head();
      // Not started: no block.
      await sleep(3 * IDLE_MS);
      expect(await head()).toBe(before);
      host.start();
      await expect.poll(head, { timeout: 5_000 }).toBeGreaterThan(before);
    } finally {
      await host.close();
    }
    // The chain is gone: a miner still running would log its failures.
    await sleep(3 * IDLE_MS);
    expect(text()).not.toContain('idle sandbox block failed');
  });

  it('mines nothing with idleBlockMs 0 (SANDBOX_IDLE_BLOCK_MS=0)', async () => {
    const host = await createSandboxHost({
      database,
      logger: capture().logger,
      baseUrl: 'http://127.0.0.1:0',
      serveRpc: (provider) => serveJsonRpc(provider),
      idleBlockMs: 0,
    });
    const head = async () =>
      BigInt(String(await host.provider.request({ method: 'eth_blockNumber' })));
    try {
      host.start();
      const before = await head();
      await sleep(IDLE_BLOCK_MS + IDLE_MS);
      expect(await head()).toBe(before);
    } finally {
      await host.close();
    }
  });
});
