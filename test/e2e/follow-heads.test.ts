import { EventEmitter } from 'node:events';
import { count, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type NotifyingProvider, providerTransport } from '../../src/chains/provider-transport.ts';
import { commerceWatchers } from '../../src/commerce/detect-events.ts';
import { createLeaderLock } from '../../src/db/leader-lock.ts';
import { chainCheckpoints, payments, requests } from '../../src/db/schema.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { createEvmSource, RangeTooLargeError } from '../../src/detection/evm-source.ts';
import { createIndexer } from '../../src/detection/indexer.ts';
import type { BlockSource } from '../../src/detection/types.ts';
import { createSettlement } from '../../src/workers/settlement.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { payBacklog } from '../backlog.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { testIndexer } from '../workers.ts';

/**
 * The indexer follows the chain's new heads: it passes when the node tells of a block, not
 * when its poll comes round; it polls again when the subscription breaks; and a backlog of
 * thousands of payments is recorded in batches, completely and once, across a restart.
 */

/** The chain's provider, passing its notifications on until `drop` breaks the subscription. */
class DroppingProvider extends EventEmitter implements NotifyingProvider {
  readonly request: NotifyingProvider['request'];
  /** Notifications passed on. */
  heard = 0;
  private live = true;
  constructor(inner: NotifyingProvider) {
    super();
    this.request = inner.request.bind(inner);
    inner.on?.('message', (message) => {
      if (!this.live) return;
      this.heard += 1;
      this.emit('message', message);
    });
  }
  /** The socket closes: nothing more is passed on, even to a new subscription. */
  drop() {
    this.live = false;
    this.emit('disconnect', new Error('the socket closed'));
  }
}

let local: StandIn;
let provider: DroppingProvider;
let t: TestApp;
let tenant: Tenant;
let destinationId: string;

beforeAll(async () => {
  local = await standIn('base');
  provider = new DroppingProvider(local.chain.provider);
  t = await createTestApp({
    env: local.env,
    transports: { base: providerTransport(provider) },
  });
  tenant = await createTenant(t.db);
  const target = resolveTarget(t.chains, {
    walletAddress: accountOf(local.chain, 1).address,
    chainId: 8453,
    tokenAddress: local.chain.addresses.usdc,
  });
  ({ destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target));
}, 120_000);
afterAll(async () => {
  await t.close();
  await local.chain.close();
});

const headers = () => ({ 'x-api-key': tenant.apiKey });
const payer = () => accountOf(local.chain, 2);
const mine = () => local.chain.provider.request({ method: 'evm_mine' });
const head = () => local.chain.client.getBlockNumber({ cacheTime: 0 });

/** A link of `count` requests and the transactions that pay it. */
async function link(count: number) {
  const created = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: headers(),
    payload: { requests: Array.from({ length: count }, () => ({ destinationId, amount: '1' })) },
  });
  expect(created.statusCode, created.body).toBe(201);
  const { token, requestIds } = created.json() as { token: string; requestIds: string[] };
  const pay = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay?wallet=${payer().address}`,
    headers: headers(),
  });
  expect(pay.statusCode, pay.body).toBe(200);
  const body = pay.json();
  // A link of several requests is paid by the batch contract's one call.
  return { requestIds, transactions: body.transactions ?? [body.batchPaymentTransaction] };
}

/** Payment rows of the requests, and how many distinct logs they are. */
async function paymentsOf(requestIds: readonly string[]) {
  const [row] = await t.db
    .select({
      rows: count(),
      // Distinct logs: a log recorded twice would be two rows of one (tx, log index).
      logs: sql`count(distinct (${payments.txHash}, ${payments.logIndex}))`.mapWith(Number),
    })
    .from(payments)
    .innerJoin(requests, eq(requests.id, payments.requestRowId))
    .where(inArray(requests.requestId, [...requestIds]));
  return { rows: row?.rows ?? 0, logs: row?.logs ?? 0 };
}

const checkpoint = async () => {
  const [row] = await t.db
    .select({ last: chainCheckpoints.lastBlock })
    .from(chainCheckpoints)
    .where(eq(chainCheckpoints.network, 'base'));
  return row?.last ?? null;
};

describe('following new heads', () => {
  it('passes when the node tells of a new block, whatever the poll interval', async () => {
    const indexer = testIndexer(t, { confirmations: 1 });
    // Ten minutes between polls: only a new head can make it pass within the test.
    indexer.start(600_000);
    try {
      await vi.waitFor(async () => expect(await checkpoint()).not.toBeNull(), { timeout: 30_000 });
      // A block mined now is followed: the checkpoint moves to it without a poll.
      await mine();
      const mined = await head();
      await vi.waitFor(async () => expect(await checkpoint()).toBe(mined - 1n), {
        timeout: 30_000,
      });
      const { requestIds, transactions } = await link(1);
      await sendAll(local.chain, payer(), transactions);
      const paidIn = await head();
      // The paying block's own head: one confirmation short, nothing recorded yet.
      await vi.waitFor(async () => expect(await checkpoint()).toBe(paidIn - 1n), {
        timeout: 30_000,
      });
      expect((await paymentsOf(requestIds)).rows).toBe(0);
      await mine(); // the confirming block
      await vi.waitFor(async () => expect((await paymentsOf(requestIds)).rows).toBe(1), {
        timeout: 30_000,
      });
      expect(await checkpoint()).toBe(paidIn);
    } finally {
      await indexer.stop();
    }
  }, 120_000);

  it('polls when the subscription breaks', async () => {
    const indexer = testIndexer(t, { confirmations: 1 });
    indexer.start(200);
    try {
      const before = provider.heard;
      await vi.waitFor(
        async () => {
          await mine();
          expect(provider.heard).toBeGreaterThan(before);
        },
        { timeout: 30_000, interval: 500 },
      );
      provider.drop();
      const heard = provider.heard;
      const { requestIds, transactions } = await link(1);
      await sendAll(local.chain, payer(), transactions);
      await mine();
      await vi.waitFor(async () => expect((await paymentsOf(requestIds)).rows).toBe(1), {
        timeout: 30_000,
      });
      // Nothing was heard since the drop: the poll found it.
      expect(provider.heard).toBe(heard);
    } finally {
      await indexer.stop();
    }
  }, 120_000);
});

describe('a backlog', () => {
  it('is recorded in batches, completely and once, across a restart in the middle', async () => {
    // Recording costs ~10 ms a payment on a shared machine: a thousand keep the test short.
    const LOGS = 1_000;
    // Caught up first (run alone, no earlier test left a checkpoint): the backlog is all new.
    await testIndexer(t, { confirmations: 1 }).tick();
    const { requestIds, transactions } = await link(10);
    const { firstBlock, lastBlock } = await payBacklog(local.chain, payer(), transactions, {
      logs: LOGS,
      perTx: 200,
    });
    // One block a transaction: the small ranges below split it.
    expect(lastBlock - firstBlock + 1n).toBe(BigInt(LOGS / 200));
    await mine();
    const contracts = t.chains.contracts('base');
    const evm = createEvmSource({ network: 'base', client: t.clients.evm('base'), contracts });
    // The first process's node refuses ranges of more than two blocks (the indexer halves its
    // span from 2,000 down to one block), and fails for good at the backlog's third block:
    // its first two blocks, 400 payments, are recorded before.
    const failing = (from: bigint, to: bigint) => {
      if (to - from + 1n > 2n) throw new RangeTooLargeError(`${from}-${to}`);
      if (to >= firstBlock + 2n) throw new Error('the process stopped');
    };
    const crashing: BlockSource = {
      ...evm,
      events: async (from, to) => {
        failing(from, to);
        return evm.events(from, to);
      },
      scan: async (from, to, watched) => {
        failing(from, to);
        if (!evm.scan) throw new Error('no scan');
        return evm.scan(from, to, watched);
      },
    };
    const indexerOn = (source: BlockSource) =>
      createIndexer({
        db: t.db,
        clock: t.clock,
        logger: t.app.log as never,
        chains: t.chains,
        network: 'base',
        source,
        confirmations: 1,
        lock: createLeaderLock(t.database, 'test:backlog:base'),
        sink: createSettlement({ chains: t.chains }),
        watchers: commerceWatchers(t.chains, t.clients, 'base'),
      });
    await expect(indexerOn(crashing).tick()).rejects.toThrow('the process stopped');
    const halfway = await paymentsOf(requestIds);
    expect(halfway).toEqual({ rows: 2 * 200, logs: 2 * 200 });

    // Started again: it resumes at its checkpoint.
    const result = await indexerOn(evm).tick();
    expect(result.recorded).toBe(LOGS - halfway.rows);
    expect(await paymentsOf(requestIds)).toEqual({ rows: LOGS, logs: LOGS });
  }, 300_000);
});
