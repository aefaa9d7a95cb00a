import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, usdcRequest } from '../../test/fixtures.ts';
import type { NetworkId } from '../chains/networks.ts';
import { createLeaderLock } from '../db/leader-lock.ts';
import { chainBlocks, chainCheckpoints, payments, requests } from '../db/schema.ts';
import { createSettlement } from '../workers/settlement.ts';
import { RangeTooLargeError } from './evm-source.ts';
import type { HeadListener } from './heads.ts';
import { createIndexer } from './indexer.ts';
import type { BlockSource, DetectedPayment, PaymentSink } from './types.ts';

/**
 * Scanning a long way: an RPC that refuses ranges over a limit makes the indexer halve its
 * range until the RPC accepts it, and the checkpoint still ends at the confirmed head with no
 * block skipped. A dense range is recorded in turns of whole blocks, each committed with the
 * checkpoint at its last block, so a write that fails loses none of the turns before it.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** An indexer of `network` over the test app's database, settling payments as the workers do. */
function indexerOf(
  network: NetworkId,
  source: BlockSource,
  options: {
    confirmations?: number;
    sink?: PaymentSink;
    turnRows?: number;
    onRecorded?: () => void;
  } = {},
) {
  return createIndexer({
    db: t.db,
    clock: t.clock,
    logger: t.app.log as never,
    chains: t.chains,
    network,
    source,
    confirmations: options.confirmations ?? 0,
    lock: createLeaderLock(t.database, `test:indexer:${network}`),
    sink: options.sink ?? createSettlement({ chains: t.chains }),
    ...(options.turnRows !== undefined && { turnRows: options.turnRows }),
    ...(options.onRecorded && { onRecorded: options.onRecorded }),
  });
}

const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** A new request of 1,000 USDC base units on `network`, to a payee of its own tenant. */
async function paidRequest(network: 'base' | 'mainnet' | 'optimism') {
  const tenant = await createTenant(t.db);
  const request = await usdcRequest(t.db, t.chains, {
    accountId: tenant.accountId,
    network,
    expectedAmount: 1_000n,
    payee: PAYEE,
  });
  const { referenceTopic, usdc } = request;
  if (!referenceTopic || !usdc.address) throw new Error('no reference');
  return { id: request.id, network, referenceTopic, token: usdc.address };
}

/** A payment in full of `request`, in block `block`, as the node reports it. */
function paymentOf(
  request: Awaited<ReturnType<typeof paidRequest>>,
  block: bigint,
  blockHash: string,
): DetectedPayment {
  return {
    network: request.network,
    txHash: `0x${'cd'.repeat(31)}${block.toString(16).padStart(2, '0')}`,
    logIndex: 0,
    blockNumber: block,
    blockHash,
    timestamp: new Date(Number(block) * 1000),
    referenceTopic: request.referenceTopic,
    tokenAddress: request.token,
    payee: PAYEE,
    amount: 1_000n,
    feeAmount: 0n,
    feeAddress: null,
    payerAddress: null,
    payerEoaAddress: null,
  };
}

const paymentsOf = async (requestRowId: string) =>
  (
    await t.db.select({ n: count() }).from(payments).where(eq(payments.requestRowId, requestRowId))
  )[0]?.n;

const checkpointOf = async (network: NetworkId) =>
  (
    await t.db
      .select({ last: chainCheckpoints.lastBlock })
      .from(chainCheckpoints)
      .where(eq(chainCheckpoints.network, network))
  )[0]?.last;

/** Forgets what the indexers of `network` recorded: the next starts afresh. */
async function forget(network: NetworkId) {
  await t.db.delete(chainCheckpoints).where(eq(chainCheckpoints.network, network));
  await t.db.delete(chainBlocks).where(eq(chainBlocks.network, network));
}

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
    const indexer = indexerOf('base', source, { confirmations: 10 });
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
    const indexer = indexerOf('matic', source);
    expect((await indexer.tick()).scannedTo).toBe(100n);
    const behind = indexerOf('matic', refusingSource(90n, 1_000n).source);
    expect(await behind.tick()).toEqual({ scannedTo: null, recorded: 0, rolledBack: 0 });
  });
});

describe('a followed chain', () => {
  it("starts each pass where the database says, reading the new head's blocks meanwhile", async () => {
    let height = 100n;
    const { source: refusing, ranges } = refusingSource(0n, 1_000n);
    let listener: HeadListener | null = null;
    const source: BlockSource = {
      ...refusing,
      head: async () => height,
      follow(heard) {
        listener = heard;
        return () => {};
      },
    };
    const told = (number: bigint) => {
      height = number;
      listener?.onHead({ number, hash: '0x01', parentHash: '0x00', timestamp: new Date(0) });
    };
    const last = () => checkpointOf('sepolia');
    const indexer = indexerOf('sepolia', source);
    // Polled an hour apart: only the heads told start passes.
    indexer.start(3_600_000);
    try {
      await expect.poll(last).toBe(100n);
      const first = ranges.length;
      told(101n);
      await expect.poll(last).toBe(101n);
      // The next head's block alone, read once: the read begun beside the checkpoint's was used.
      expect(ranges.slice(first)).toEqual([[101n, 101n]]);
      // Another process moved the checkpoint back (it rolled back a fork): blocks 96-101 are
      // read again, not only the new head's block that this process had not recorded.
      await t.db
        .update(chainCheckpoints)
        .set({ lastBlock: 95n })
        .where(eq(chainCheckpoints.network, 'sepolia'));
      const before = ranges.length;
      told(102n);
      await expect.poll(last).toBe(102n);
      // The guess, then the range the database said.
      expect(ranges.slice(before)).toEqual([
        [102n, 102n],
        [96n, 102n],
      ]);
    } finally {
      await indexer.stop();
    }
  });

  it('drops the blocks read beside the checkpoint when the pass finds the chain forked', async () => {
    await forget('base');
    const request = await paidRequest('base');
    // Blocks above 100 are replaced when the node reorganises; only the old fork pays, in 102.
    let forked = false;
    const hashOf = (n: bigint) =>
      `0x${(forked && n > 100n ? 'f' : '0').repeat(8)}${n.toString(16).padStart(56, '0')}`;
    const orphan = paymentOf(request, 102n, hashOf(102n));
    // The node reorganises right after it answers the next read of logs.
    let armed = false;
    let height = 100n;
    let listener: HeadListener | null = null;
    const source: BlockSource = {
      head: async () => height,
      blockHash: async (n) => hashOf(n),
      events: async (from, to) => {
        const found = !forked && from <= 102n && to >= 102n ? [orphan] : [];
        if (armed) forked = true;
        return found;
      },
      payers: async () => ({ payerAddress: PAYEE, payerEoaAddress: PAYEE }),
      follow(heard) {
        listener = heard;
        return () => {};
      },
    };
    const told = (number: bigint) => {
      height = number;
      listener?.onHead({
        number,
        hash: hashOf(number),
        parentHash: '0x00',
        timestamp: new Date(0),
      });
    };
    const indexer = indexerOf('base', source);
    indexer.start(3_600_000);
    try {
      await expect.poll(() => checkpointOf('base')).toBe(100n);
      // Another process recorded 101-103 of the old fork meanwhile (it held the lock then).
      await t.db
        .update(chainCheckpoints)
        .set({ lastBlock: 103n })
        .where(eq(chainCheckpoints.network, 'base'));
      await t.db.insert(chainBlocks).values({ network: 'base', number: 103n, hash: hashOf(103n) });
      // This pass's read beside the checkpoint is of the old fork; the pass finds it forked
      // at 100, and reads 101-104 again, of the new.
      armed = true;
      told(104n);
      await expect.poll(() => checkpointOf('base')).toBe(104n);
      told(105n);
      await expect.poll(() => checkpointOf('base')).toBe(105n);
      expect(await paymentsOf(request.id)).toBe(0);
    } finally {
      await indexer.stop();
    }
  });

  it("has a new block's few payments' sink read what it can before their transaction", async () => {
    await forget('base');
    const request = await paidRequest('base');
    const settlement = createSettlement({ chains: t.chains });
    const readAhead: string[][] = [];
    const sink: PaymentSink = {
      ...settlement,
      async readAhead(db, requests) {
        readAhead.push(requests.map((r) => r.id));
        if (!settlement.readAhead) throw new Error('the settlement reads nothing ahead');
        return settlement.readAhead(db, requests);
      },
    };
    const hashOf = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;
    const payment = paymentOf(request, 10n, hashOf(10n));
    const source: BlockSource = {
      head: async () => 10n,
      blockHash: async (n) => hashOf(n),
      events: async (from, to) => (from <= 10n && to >= 10n ? [payment] : []),
      payers: async () => ({ payerAddress: PAYEE, payerEoaAddress: PAYEE }),
    };
    expect((await indexerOf('base', source, { sink }).tick()).recorded).toBe(1);
    expect(readAhead).toEqual([[request.id]]);
  });
});

describe('a dense range', () => {
  /**
   * Blocks 11-20 of a network, each with `perBlock` payments of one unit to one request; the
   * node names their payer after `lookupMs`, and counts how often it was asked.
   */
  async function denseChain(
    network: 'optimism' | 'mainnet',
    { perBlock, lookupMs }: { readonly perBlock: number; readonly lookupMs: number },
  ) {
    const request = await paidRequest(network);
    const hashOf = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;
    const events: DetectedPayment[] = [];
    for (let block = 11n; block <= 20n; block++) {
      for (let logIndex = 0; logIndex < perBlock; logIndex++) {
        events.push({
          network,
          txHash: `0x${'ab'.repeat(31)}${block.toString(16).padStart(2, '0')}`,
          logIndex,
          blockNumber: block,
          blockHash: hashOf(block),
          timestamp: new Date(Number(block) * 1000),
          referenceTopic: request.referenceTopic,
          tokenAddress: request.token,
          payee: PAYEE,
          amount: 1n,
          feeAmount: 0n,
          feeAddress: null,
          payerAddress: null,
          payerEoaAddress: null,
        });
      }
    }
    const asked = { payers: 0 };
    const source: BlockSource = {
      head: async () => 20n,
      blockHash: async (n) => hashOf(n),
      events: async (from, to) =>
        events.filter((e) => e.blockNumber >= from && e.blockNumber <= to),
      payers: async () => {
        asked.payers += 1;
        await new Promise((resolve) => setTimeout(resolve, lookupMs));
        return { payerAddress: PAYEE, payerEoaAddress: PAYEE };
      },
    };
    return { source, requestRowId: request.id, asked };
  }

  /** A sink whose `recorded` fails at its `failing`th call (the fault), else settles. */
  function failingSink(failing: number): PaymentSink {
    const settlement = createSettlement({ chains: t.chains });
    let writes = 0;
    return {
      ...settlement,
      async recorded(tx, recorded, now) {
        writes += 1;
        if (writes === failing) throw new Error(`turn ${failing} failed`);
        await settlement.recorded(tx, recorded, now);
      },
    };
  }

  it('is recorded in turns of whole blocks, and a failed turn keeps those before it', async () => {
    const { source, requestRowId } = await denseChain('optimism', { perBlock: 5, lookupMs: 0 });
    const settlement = createSettlement({ chains: t.chains });
    // The fault: the second turn's write fails, after its rows were inserted.
    const failing = failingSink(2);
    const committed: number[] = [];
    const indexer = (sink: PaymentSink) =>
      indexerOf('optimism', source, { sink, turnRows: 12, onRecorded: () => committed.push(1) });
    await expect(indexer(failing).tick()).rejects.toThrow('turn 2 failed');
    // Turns of whole blocks, each at least 12 payments: 11-13 (15), then 14-16, which failed.
    expect(await checkpointOf('optimism')).toBe(13n);
    expect(await paymentsOf(requestRowId)).toBe(15);
    expect(committed).toHaveLength(1);

    // Each turn is written at its own time (a minute passes in each).
    const times: number[] = [];
    const timed: PaymentSink = {
      ...settlement,
      async recorded(tx, recorded, now) {
        times.push(now.getTime());
        t.clock.advance(60_000);
        await settlement.recorded(tx, recorded, now);
      },
    };
    const again = await indexer(timed).tick();
    expect(again).toEqual({ scannedTo: 20n, recorded: 35, rolledBack: 0 });
    // 14-16, 17-19, and 20 with what is left.
    expect(committed).toHaveLength(4);
    expect(times.slice(1).map((at, i) => at - (times[i] ?? 0) >= 60_000)).toEqual([true, true]);
    expect(await checkpointOf('optimism')).toBe(20n);
    expect(await paymentsOf(requestRowId)).toBe(50);
    const [request] = await t.db
      .select({ paid: requests.totalAmountPaid })
      .from(requests)
      .where(eq(requests.id, requestRowId));
    expect(request?.paid).toBe(50n);
  });

  it('stops asking who paid once a turn failed', async () => {
    const { source, asked } = await denseChain('mainnet', { perBlock: 10, lookupMs: 200 });
    const indexer = indexerOf('mainnet', source, { sink: failingSink(1), turnRows: 40 });
    await expect(indexer.tick()).rejects.toThrow('turn 1 failed');
    // Turns of 40, 40 and 20 payments, asked 32 at a time, 200 ms each: the first turn's 40,
    // and the second turn's first 32, still out when the first turn's write failed; none after.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(asked.payers).toBe(72);
    expect(await checkpointOf('mainnet')).toBeUndefined();
  });
});
