import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createLeaderLock } from '../db/leader-lock.ts';
import { createSettlement } from '../workers/settlement.ts';
import { RangeTooLargeError } from './evm-source.ts';
import { createIndexer } from './indexer.ts';
import type { BlockSource } from './types.ts';

/**
 * Scanning a long way: an RPC that refuses ranges over a limit makes the indexer halve its
 * range until the RPC accepts it, and the checkpoint still ends at the confirmed head with no
 * block skipped.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** A chain of `height` blocks whose RPC refuses log queries over `limit` blocks (the fault). */
function refusingSource(height: bigint, limit: bigint) {
  const ranges: [bigint, bigint][] = [];
  const source: BlockSource = {
    head: async () => height,
    blockHash: async (n) => `0x${n.toString(16).padStart(64, '0')}`,
    events: async (from, to) => {
      if (to - from + 1n > limit) throw new RangeTooLargeError(`${from}-${to}`);
      ranges.push([from, to]);
      return [];
    },
    payers: async () => ({ payerAddress: null, payerEoaAddress: null }),
  };
  return { source, ranges };
}

describe('the indexer', () => {
  it('halves the log range the RPC refuses, and covers every block once', async () => {
    const { source, ranges } = refusingSource(5_000n, 300n);
    const indexer = createIndexer({
      db: t.db,
      clock: t.clock,
      logger: t.app.log as never,
      chains: t.chains,
      network: 'base',
      source,
      confirmations: 10,
      lock: createLeaderLock(t.database, 'test:range:base'),
      sink: createSettlement({ chains: t.chains }),
    });
    const result = await indexer.tick();
    expect(result.scannedTo).toBe(4_990n);
    expect(ranges.every(([from, to]) => to - from + 1n <= 300n)).toBe(true);
    // Contiguous, from the first-start lookback to the confirmed head.
    expect(ranges[0]?.[0]).toBe(3_990n);
    for (let i = 1; i < ranges.length; i++)
      expect(ranges[i]?.[0]).toBe((ranges[i - 1]?.[1] ?? 0n) + 1n);
    expect(ranges.at(-1)?.[1]).toBe(4_990n);
    expect((await indexer.tick()).scannedTo).toBe(4_990n);
    expect(ranges.at(-1)?.[1]).toBe(4_990n);
  });

  it('waits while the node reports a head below the checkpoint', async () => {
    const { source } = refusingSource(100n, 1_000n);
    const indexer = createIndexer({
      db: t.db,
      clock: t.clock,
      logger: t.app.log as never,
      chains: t.chains,
      network: 'matic',
      source,
      confirmations: 0,
      lock: createLeaderLock(t.database, 'test:behind:matic'),
      sink: createSettlement({ chains: t.chains }),
    });
    expect((await indexer.tick()).scannedTo).toBe(100n);
    const behind = createIndexer({
      db: t.db,
      clock: t.clock,
      logger: t.app.log as never,
      chains: t.chains,
      network: 'matic',
      source: refusingSource(90n, 1_000n).source,
      confirmations: 0,
      lock: createLeaderLock(t.database, 'test:behind:matic'),
      sink: createSettlement({ chains: t.chains }),
    });
    expect(await behind.tick()).toEqual({ scannedTo: null, recorded: 0, rolledBack: 0 });
  });
});
