import { eq } from 'drizzle-orm';
import { type Address, getAddress, type Hex, keccak256, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.ts';
import { createLeaderLock } from '../../src/db/leader-lock.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { paymentIntents, webhookDeliveries } from '../../src/db/schema.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import type { SafeTransaction } from '../../src/payments/safe/safe-transaction.ts';
import { safeTxHash } from '../../src/payments/safe/safe-tx.ts';
import { createSafeTracker, type SafeTracker } from '../../src/secure-payments/safe-tracker.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { createSafe, executeSafeTransaction, fundSafe, signSafeTransaction } from '../safe.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testIndexer } from '../workers.ts';

/**
 * The tracker of payers' Safe transactions (issue #34 item 3) on a local chain with Safe
 * 1.4.1's published code: each way tracking ends (executed, the Safe's failure event, the
 * nonce taken by another transaction, the deadline), each lifting the 423 and each failure
 * queuing `payment.failed`; a tracker that replaces a stopped one resumes from the database;
 * two processes on Postgres end an intent once.
 */

const source = inject('testDatabase');

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let receiver: Receiver;
let indexer: Indexer;
let tracker: SafeTracker;
let usdc: Address;

function trackerOn(database: DatabaseHandle, lock?: string): SafeTracker {
  return createSafeTracker({
    db: database.db,
    clock: t.clock,
    logger: t.app.log as never,
    client: (network) => (network === 'base' ? t.clients.evm('base') : null),
    ...(lock !== undefined && { lock: createLeaderLock(database, lock) }),
  });
}

beforeAll(async () => {
  local = await standIn('base', { walletCount: 8 });
  t = await createTestApp({
    env: { ...local.env, ALLOW_LOCAL_WEBHOOKS: 'true' },
    transports: local.transports,
  });
  tenant = await createTenant(t.db);
  receiver = await startReceiver();
  const hook = await call('POST', '/v1/webhook', { url: receiver.url });
  expect(hook.statusCode, hook.body).toBe(201);
  indexer = testIndexer(t, { network: 'base', confirmations: 0 });
  tracker = trackerOn(t.database);
  usdc = getAddress(local.chain.addresses.usdc);
}, 120_000);
afterAll(async () => {
  await tracker?.stop();
  await indexer?.stop();
  await receiver?.close();
  await t?.close();
  await local?.chain.close();
});

const wallet = (index: number) => accountOf(local.chain, index);
const owners = () => [wallet(2), wallet(3), wallet(4)] as const;

function call(method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) {
  return t.app.inject({
    method,
    url,
    headers: { 'x-api-key': tenant.apiKey },
    ...(payload && { payload }),
  });
}

/** A 2-of-3 Safe of test wallets 2, 3 and 4 holding `usdc` base units. */
async function fundedSafe(amount = 1_000_000_000n): Promise<Address> {
  const safe = await createSafe(
    local.chain,
    owners().map((owner) => owner.address),
    2,
  );
  await fundSafe(local.chain, wallet(5), usdc, safe, amount);
  return safe;
}

async function newLink(amount: string, seed: string) {
  const to = getAddress(keccak256(toHex(`tracked payee ${seed}`)).slice(0, 42));
  const target = resolveTarget(t.chains, { walletAddress: to, chainId: 8453, tokenAddress: usdc });
  const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
  const created = await call('POST', '/v2/secure-payments', {
    requests: [{ destinationId, amount }],
  });
  expect(created.statusCode, created.body).toBe(201);
  return created.json() as { token: string; requestIds: string[] };
}

async function safePay(token: string, safe: Address): Promise<SafeTransaction> {
  const res = await call('GET', `/v2/secure-payments/${token}/pay?isSafe=true&wallet=${safe}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().safeTransaction;
}

async function recordIntent(token: string, body: Record<string, unknown>): Promise<string> {
  const res = await call('POST', `/v2/secure-payments/${token}/intent`, {
    chain: 'BASE',
    token: 'USDC',
    ...body,
  });
  expect(res.statusCode, res.body).toBe(200);
  expect((await call('GET', `/v2/secure-payments/${token}`)).statusCode).toBe(423);
  return res.json().intentId;
}

/** Owners 4 (EIP-712) and 2 (`eth_sign`) sign, owner 3 executes. */
async function signAndExecute(safeTx: SafeTransaction): Promise<Hex> {
  const [second, third, fourth] = owners();
  const signatures = [
    await signSafeTransaction(fourth, safeTx, 'typed'),
    await signSafeTransaction(second, safeTx, 'eth_sign'),
  ];
  return executeSafeTransaction(local.chain, third, safeTx, signatures);
}

async function intentRow(id: string) {
  const [row] = await t.db.select().from(paymentIntents).where(eq(paymentIntents.id, id));
  if (!row) throw new Error(`no intent ${id}`);
  return row;
}

/** The `payment.failed` bodies queued for a request. */
async function failedEvents(requestId: string, db = t.db) {
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.event, 'payment.failed'));
  return rows
    .map((row) => JSON.parse(row.body) as Record<string, unknown>)
    .filter((body) => body.requestId === requestId);
}

async function expectFailed(
  intentId: string,
  link: { token: string; requestIds: string[] },
  reason: string,
) {
  const row = await intentRow(intentId);
  expect(row).toMatchObject({ status: 'failed', failureReason: reason });
  expect(row.endedAt).toEqual(t.clock.now());
  expect((await call('GET', `/v2/secure-payments/${link.token}`)).statusCode).toBe(200);
  const [requestId] = link.requestIds;
  const events = await failedEvents(requestId ?? '');
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({
    event: 'payment.failed',
    requestId,
    requestID: requestId,
    paymentReference: expect.stringMatching(/^0x[0-9a-f]{16}$/),
    subStatus: 'failed',
    failureReason: reason,
    paymentProcessor: 'request-network',
    securePaymentToken: link.token,
  });
}

describe('tracking a Safe transaction to its end', () => {
  it('ends as executed with the executing hash; the 423 lifts and detection pays the request', async () => {
    const safe = await fundedSafe();
    const link = await newLink('7.5', 'executed');
    const safeTx = await safePay(link.token, safe);
    // No payerAddress: the tracker finds the Safe and the nonce from what /pay answered.
    const intentId = await recordIntent(link.token, { safeTxHash: safeTx.safeTxHash });
    await tracker.round();
    expect(await intentRow(intentId)).toMatchObject({ status: 'tracking' });

    const txHash = await signAndExecute(safeTx);
    await tracker.round();
    expect(await intentRow(intentId)).toMatchObject({
      status: 'executed',
      txHash: txHash.toLowerCase(),
      payerAddress: safe,
      failureReason: null,
    });
    expect((await call('GET', `/v2/secure-payments/${link.token}`)).statusCode).toBe(200);

    await indexer.tick();
    const status = await call('GET', `/v2/request/${link.requestIds[0]}`);
    expect(status.json()).toMatchObject({ hasBeenPaid: true, txHash, payerAddress: safe });
    expect(await failedEvents(link.requestIds[0] ?? '')).toEqual([]);
  });

  it('fails on the Safe’s ExecutionFailure (a payment past its balance, with safeTxGas set)', async () => {
    // 2 USDC for a 5 USDC link: the packed payment fails inside the Safe. With safeTxGas above
    // zero Safe 1.4.1 keeps the execution (nonce used, ExecutionFailure) instead of reverting.
    const safe = await fundedSafe(2_000_000n);
    const link = await newLink('5', 'reverted');
    const answered = await safePay(link.token, safe);
    const fields = {
      to: answered.to,
      value: BigInt(answered.value),
      data: answered.data,
      operation: answered.operation,
      safeTxGas: 300_000n,
      baseGas: 0n,
      gasPrice: 0n,
      gasToken: answered.gasToken,
      refundReceiver: answered.refundReceiver,
      nonce: BigInt(answered.nonce),
    };
    const safeTx: SafeTransaction = {
      ...answered,
      safeTxGas: '300000',
      safeTxHash: safeTxHash(answered.chainId, safe, fields),
    };
    const intentId = await recordIntent(link.token, {
      safeTxHash: safeTx.safeTxHash,
      payerAddress: safe,
    });
    const txHash = await signAndExecute(safeTx);
    await tracker.round();
    await expectFailed(intentId, link, 'execution reverted');
    expect((await intentRow(intentId)).txHash).toBe(txHash.toLowerCase());
  });

  it('fails when another Safe transaction takes its nonce', async () => {
    const safe = await fundedSafe();
    const link = await newLink('3', 'nonce');
    const safeTx = await safePay(link.token, safe);
    const intentId = await recordIntent(link.token, { safeTxHash: safeTx.safeTxHash });
    // The owners pay another link instead, at the same nonce.
    const other = await newLink('1', 'nonce other');
    await signAndExecute(await safePay(other.token, safe));
    await tracker.round();
    await expectFailed(intentId, link, 'nonce used by another transaction');
    // The intent named no payer: the Safe /pay answered for the hash is the one named.
    const [event] = await failedEvents(link.requestIds[0] ?? '');
    expect(event?.payerAddress).toBe(safe);
  });

  it('fails when there is no Safe at the address it names (a chain started afresh)', async () => {
    const link = await newLink('1.5', 'no code');
    const nowhere = getAddress(keccak256(toHex('no Safe here')).slice(0, 42));
    const intentId = await recordIntent(link.token, {
      safeTxHash: keccak256(toHex('a Safe transaction of no Safe')),
      payerAddress: nowhere,
    });
    await tracker.round();
    await expectFailed(intentId, link, 'no Safe at the address');
  });

  it('fails once the deadline passes, on the app’s clock', async () => {
    const safe = await fundedSafe();
    const link = await newLink('2', 'deadline');
    const safeTx = await safePay(link.token, safe);
    const deadline = Math.floor(t.clock.now().getTime() / 1000) + 600;
    const intentId = await recordIntent(link.token, {
      safeTxHash: safeTx.safeTxHash,
      safePaymentDeadline: deadline,
    });
    t.clock.advance(599_000);
    await tracker.round();
    expect(await intentRow(intentId)).toMatchObject({ status: 'tracking' });
    t.clock.advance(1_000);
    await tracker.round();
    await expectFailed(intentId, link, 'deadline passed');
  });

  it('is resumed by the next tracker when the one tracking stops', async () => {
    const safe = await fundedSafe();
    const link = await newLink('4', 'resumed');
    const safeTx = await safePay(link.token, safe);
    const intentId = await recordIntent(link.token, { safeTxHash: safeTx.safeTxHash });
    const first = trackerOn(t.database);
    await first.round();
    await first.stop();
    expect((await intentRow(intentId)).scanFromBlock).not.toBeNull();

    const txHash = await signAndExecute(safeTx);
    // Another process's tracker: nothing of the first but the database.
    const database =
      t.database.engine.kind === 'postgres'
        ? openPostgres(
            (t.database.engine.pool.options as { connectionString: string }).connectionString,
            2,
          )
        : t.database;
    try {
      await trackerOn(database).round();
    } finally {
      if (database !== t.database) await database.close();
    }
    expect(await intentRow(intentId)).toMatchObject({
      status: 'executed',
      txHash: txHash.toLowerCase(),
    });
  });
});

describe.runIf(source.kind === 'postgres')('two processes on Postgres', () => {
  it('end an intent once: one payment.failed', async () => {
    if (t.database.engine.kind !== 'postgres') throw new Error('needs Postgres');
    const url = (t.database.engine.pool.options as { connectionString: string }).connectionString;
    const pools = [openPostgres(url, 3), openPostgres(url, 3)];
    const safe = await fundedSafe();
    const link = await newLink('6', 'two processes');
    const safeTx = await safePay(link.token, safe);
    const deadline = Math.floor(t.clock.now().getTime() / 1000) + 60;
    const intentId = await recordIntent(link.token, {
      safeTxHash: safeTx.safeTxHash,
      safePaymentDeadline: deadline,
    });
    t.clock.advance(61_000);
    const trackers = pools.map((pool) => trackerOn(pool, 'test:safe-tracker'));
    try {
      // Even racing without the lock, the row ends once.
      await Promise.all(trackers.map((each) => each.round()));
      await expectFailed(intentId, link, 'deadline passed');

      // With the lock, one poller runs rounds and the other skips them.
      const later = await newLink('6', 'two processes, locked');
      const laterTx = await safePay(later.token, safe);
      const laterId = await recordIntent(later.token, {
        safeTxHash: laterTx.safeTxHash,
        safePaymentDeadline: Math.floor(t.clock.now().getTime() / 1000) + 60,
      });
      t.clock.advance(61_000);
      for (const each of trackers) each.start(20);
      const until = Date.now() + 10_000;
      while ((await intentRow(laterId)).status === 'tracking' && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await expectFailed(laterId, later, 'deadline passed');
      // One of the two holds the lock: a third process would not get it.
      const third = createLeaderLock(pools[0] ?? t.database, 'test:safe-tracker');
      expect(await third.acquire()).toBe(false);
      await third.release();
    } finally {
      for (const each of trackers) await each.stop();
      for (const pool of pools) await pool.close();
    }
  });
});
