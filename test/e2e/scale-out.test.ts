import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.ts';
import { createLeaderLock, type LeaderLock } from '../../src/db/leader-lock.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * Two processes' worth of workers on one Postgres, each with its own connection pool: one
 * indexer per network holds the lock, no payment is recorded twice even when both scan at
 * once, and every delivery reaches the receiver exactly once.
 */

const source = inject('testDatabase');
const PAYMENTS = 5;

describe.runIf(source.kind === 'postgres')('two workers on one Postgres', () => {
  let local: StandIn;
  let t: TestApp;
  let second: DatabaseHandle;
  let tenant: Tenant;
  let receiver: Receiver;
  const indexers: Indexer[] = [];
  const locks: LeaderLock[] = [];
  const dispatchers: Dispatcher[] = [];

  beforeAll(async () => {
    local = await standIn('base');
    t = await createTestApp({
      env: { ...local.env, CONFIRMATIONS_BASE: '1' },
      transports: local.transports,
    });
    if (t.database.engine.kind !== 'postgres') throw new Error('needs Postgres');
    const url = (t.database.engine.pool.options as { connectionString: string }).connectionString;
    second = openPostgres(url, 4);
    tenant = await createTenant(t.db);
    receiver = await startReceiver();
    for (const handle of [t.database, second]) {
      const lock = createLeaderLock(handle, 'test:scale-out:indexer:base');
      locks.push(lock);
      indexers.push(testIndexer(t, { confirmations: 1, database: handle, lock }));
      dispatchers.push(testDispatcher(t, handle));
    }
    const registered = await t.app.inject({
      method: 'POST',
      url: '/v1/webhook',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { url: receiver.url },
    });
    expect(registered.statusCode).toBe(201);
    receiver.verifyWith(registered.json().secret);
  });
  afterAll(async () => {
    for (const lock of locks) await lock.release();
    await second?.close();
    await receiver?.close();
    await t?.close();
    await local?.chain.close();
  });

  it('records each payment once and delivers each event once', async () => {
    const payer = accountOf(local.chain, 0);
    const requestIds: string[] = [];
    for (let i = 0; i < PAYMENTS; i++) {
      const target = resolveTarget(t.chains, {
        walletAddress: accountOf(local.chain, 1 + (i % 4)).address,
        chainId: 8453,
        tokenAddress: local.chain.addresses.usdc,
      });
      const destination = await activateDestination(t.db, t.clock, tenant.accountId, target);
      const created = await t.app.inject({
        method: 'POST',
        url: '/v2/secure-payments',
        headers: { 'x-api-key': tenant.apiKey },
        payload: { requests: [{ destinationId: destination.destinationId, amount: `${i + 1}` }] },
      });
      requestIds.push(created.json().requestIds[0]);
      const pay = await t.app.inject({
        method: 'GET',
        url: `/v2/secure-payments/${created.json().token}/pay?wallet=${payer.address}`,
        headers: { 'x-api-key': tenant.apiKey },
      });
      await sendAll(local.chain, payer, pay.json().transactions);
    }
    await local.chain.provider.request({ method: 'evm_mine' });

    // The lock: exactly one of the two takes the network.
    const held = await Promise.all(locks.map((lock) => lock.acquire()));
    expect(held.filter(Boolean)).toHaveLength(1);
    // Even scanning at the same moment (as if the lock were lost), nothing is counted twice.
    const results = await Promise.all(indexers.map((indexer) => indexer.tick()));
    expect(results.reduce((sum, r) => sum + r.recorded, 0)).toBe(PAYMENTS);
    for (const [i, id] of requestIds.entries()) {
      const status = await t.app.inject({
        method: 'GET',
        url: `/v2/request/${id}`,
        headers: { 'x-api-key': tenant.apiKey },
      });
      expect(status.json()).toMatchObject({ status: 'paid', totalAmountPaid: `${i + 1}` });
    }

    // Both dispatchers drain the outbox together: 5 payments × (confirmed + checkout).
    let sent = 0;
    for (let round = 0; round < 10; round++) {
      const counts = await Promise.all(dispatchers.map((d) => d.runOnce()));
      sent += counts.reduce((sum, n) => sum + n, 0);
    }
    const received = await receiver.waitFor(PAYMENTS * 2);
    expect(sent).toBe(PAYMENTS * 2);
    expect(received).toHaveLength(PAYMENTS * 2);
    expect(new Set(received.map((r) => r.headers['x-service-delivery'])).size).toBe(PAYMENTS * 2);
    expect(received.every((r) => r.headers['x-service-retry-count'] === '0')).toBe(true);
  });
});
