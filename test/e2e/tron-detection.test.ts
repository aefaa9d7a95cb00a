import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { evmToTron, tronToEvm } from '../../src/chains/tron-address.ts';
import { createTronGridClient } from '../../src/chains/tron-grid.ts';
import { createLeaderLock, type LeaderLock } from '../../src/db/leader-lock.ts';
import { chainCheckpoints } from '../../src/db/schema.ts';
import { createIndexer, type Indexer } from '../../src/detection/indexer.ts';
import { createTronBlockSource } from '../../src/detection/tron-source.ts';
import { referenceTopic } from '../../src/payments/references.ts';
import { createDispatcher, type Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createSettlement } from '../../src/workers/settlement.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { type FakeTronGrid, startFakeTronGrid, type TronGridEventItem } from '../fake-tron-grid.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';

/**
 * Tron payments found end to end: a payee registers a Tron destination and a link through the
 * HTTP API, TronGrid (a local stand-in over real HTTP) indexes a fee-proxy event carrying the
 * request's reference, the indexer records it once it is deep enough, and the webhooks reach a
 * real receiver. The indexer's checkpoint moves forward across tests, as on a real network.
 */

const CONFIRMATIONS = 19;
const TRON_CHAIN_ID = 728126428;
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
/** USDC on Tron: a real TRC-20 the request was not made in. */
const USDC = 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8';
const PROXY = 'TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd';
const API_KEY = 'test-key';
/** The payee's wallet: Tron accounts are EVM keys, so viem signs for it. */
const PAYEE_KEY = `0x${'5e'.repeat(32)}` as const;
/** Someone else's wallet, to be paid by mistake. */
const STRANGER = evmToTron(`0x${'7a'.repeat(20)}`);
/** The sender as a full node reports it (`41` + 20 bytes), and in base58. */
const PAYER_HEX41 = '41704833c02883b3261f7baf62f8cb19b4b0c2e64e';
const PAYER = 'TLCuBEirVzB6V4menLZKw1jfBTFMZbuKq7';

/** Tron makes a block every 3 s; heights past the proxy's creation block. */
const FIRST_BLOCK = 80_000_000;
const FIRST_TIMESTAMP = Date.UTC(2026, 0, 1);
const BLOCK_INTERVAL_MS = 3_000;
/** Enough history for the indexer's first look back (1,000 blocks below the confirmed head). */
const HISTORY_BLOCKS = 1_100;

const payeeAccount = privateKeyToAccount(PAYEE_KEY);
const PAYEE = evmToTron(payeeAccount.address);

let t: TestApp;
let tenant: Tenant;
let fake: FakeTronGrid;
let receiver: Receiver;
let indexer: Indexer;
let lock: LeaderLock;
let dispatcher: Dispatcher;
let destinationId: string;
/** The newest block the fake has. */
let head = FIRST_BLOCK - 1;
/** Fault injection: the next call to this TronGrid path is answered 500 by the fake. */
let failNextCallTo: string | null = null;

const clientHeaders = () => ({ 'x-client-id': tenant.backendClientId });

/** A fresh process's indexer on the shared database: its own client, source and lock. */
function buildIndexer(): { indexer: Indexer; lock: LeaderLock } {
  const client = createTronGridClient({
    baseUrl: fake.url,
    apiKey: API_KEY,
    fetch: async (input, init) => {
      if (failNextCallTo !== null && new URL(String(input)).pathname === failNextCallTo) {
        failNextCallTo = null;
        fake.failNext(1, 500);
      }
      return fetch(input, init);
    },
  });
  const leaderLock = createLeaderLock(t.database, 'test:indexer:tron');
  return {
    lock: leaderLock,
    indexer: createIndexer({
      db: t.db,
      clock: t.clock,
      logger: t.app.log as never,
      chains: t.chains,
      network: 'tron',
      source: createTronBlockSource({ client, proxyAddress: PROXY, network: 'tron' }),
      confirmations: CONFIRMATIONS,
      lock: leaderLock,
      sink: createSettlement({ chains: t.chains }),
    }),
  };
}

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_RETRY_BASE_MS: '1000' } });
  tenant = await createTenant(t.db);
  fake = await startFakeTronGrid();
  receiver = await startReceiver();
  ({ indexer, lock } = buildIndexer());
  expect(await lock.acquire()).toBe(true);
  dispatcher = createDispatcher({
    db: t.db,
    clock: t.clock,
    logger: t.app.log as never,
    secretBox: t.secretBox,
    config: t.config.webhooks,
  });
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: clientHeaders(),
    payload: { url: receiver.url },
  });
  expect(registered.statusCode, registered.body).toBe(201);
  // The receiver checks deliveries as one written for the reference API would.
  receiver.verifyWith(registered.json().secret);
  destinationId = await registerDestination();

  mine(HISTORY_BLOCKS);
  expect(await indexer.tick()).toEqual({
    scannedTo: BigInt(head - CONFIRMATIONS),
    recorded: 0,
    rolledBack: 0,
  });
});
afterAll(async () => {
  await indexer.stop();
  await receiver.close();
  await fake.close();
  await t.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});

/** The payee's USDT-tron destination, through the signed flow a Tron wallet goes through. */
async function registerDestination(): Promise<string> {
  const signing = await t.app.inject({
    method: 'GET',
    url: `/v2/payee-destination/signing-data?walletAddress=${PAYEE}&action=add&tokenAddress=${USDT}&chainId=${TRON_CHAIN_ID}`,
    headers: clientHeaders(),
  });
  expect(signing.statusCode, signing.body).toBe(200);
  const { typedData, nonce } = signing.json();
  const signature = await payeeAccount.signTypedData({
    ...typedData,
    message: {
      ...typedData.message,
      chainId: BigInt(typedData.message.chainId),
      expiresAt: BigInt(typedData.message.expiresAt),
    },
  });
  const created = await t.app.inject({
    method: 'POST',
    url: '/v2/payee-destination',
    headers: clientHeaders(),
    payload: { signature, nonce },
  });
  expect(created.statusCode, created.body).toBe(201);
  expect(created.json()).toMatchObject({
    walletAddress: PAYEE,
    tokenAddress: USDT,
    chainId: TRON_CHAIN_ID,
    network: 'tron',
  });
  return created.json().destinationId;
}

/** Adds `count` blocks on top of the fake's chain; returns the height of the first. */
function mine(count: number): number {
  const first = head + 1;
  for (let i = 0; i < count; i++) {
    head += 1;
    fake.addBlock({
      number: head,
      timestamp: timestampOf(head),
      // Block ids start with the height, as Tron's do.
      hash: head.toString(16).padStart(16, '0') + randomBytes(24).toString('hex'),
    });
  }
  return first;
}

function timestampOf(block: number): number {
  return FIRST_TIMESTAMP + (block - FIRST_BLOCK) * BLOCK_INTERVAL_MS;
}

interface Link {
  readonly token: string;
  readonly requestId: string;
  /** keccak256 of the request's 8 reference bytes, as the proxy's event indexes it. */
  readonly topic: string;
}

async function createLink(amount: string): Promise<Link> {
  const created = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: clientHeaders(),
    payload: { requests: [{ destinationId, amount }] },
  });
  expect(created.statusCode, created.body).toBe(201);
  const [requestId] = created.json().requestIds as string[];
  if (requestId === undefined) throw new Error('no request id');
  const reference = (await requestStatus(requestId)).paymentReference as string;
  expect(reference).toMatch(/^0x[0-9a-f]{16}$/);
  return { token: created.json().token, requestId, topic: referenceTopic(reference.slice(2)) };
}

async function requestStatus(requestId: string): Promise<Record<string, unknown>> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}`,
    headers: clientHeaders(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function linkStatusCode(token: string): Promise<number> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}`,
    headers: clientHeaders(),
  });
  return res.statusCode;
}

/** The recorded payments of a Tron transaction, found by its id the way API users search. */
async function paymentsOf(txId: string): Promise<Record<string, unknown>[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/payments?txHash=0x${txId}`,
    headers: clientHeaders(),
  });
  expect(res.statusCode, res.body).toBe(200);
  const { payments, pagination } = res.json();
  expect(pagination.total).toBe(payments.length);
  return payments;
}

/**
 * A `TransferWithReferenceAndFee` of the Tron ERC20FeeProxy in `block`, as TronGrid indexes
 * it (addresses as `0x` hex, the indexed reference as its hash), sent by PAYER.
 */
function paymentEvent(
  block: number,
  link: Link,
  amount: bigint,
  result: { tokenAddress?: string; to?: string } = {},
): TronGridEventItem {
  const txId = randomBytes(32).toString('hex');
  fake.setSender(txId, PAYER_HEX41);
  return {
    transaction_id: txId,
    block_number: block,
    block_timestamp: timestampOf(block),
    event_index: 0,
    event_name: 'TransferWithReferenceAndFee',
    contract_address: PROXY,
    result: {
      tokenAddress: tronToEvm(result.tokenAddress ?? USDT).toLowerCase(),
      to: tronToEvm(result.to ?? PAYEE).toLowerCase(),
      amount: String(amount),
      paymentReference: link.topic.slice(2),
      feeAmount: '0',
      feeAddress: `0x${'0'.repeat(40)}`,
    },
    result_type: {
      tokenAddress: 'address',
      to: 'address',
      amount: 'uint256',
      paymentReference: 'bytes',
      feeAmount: 'uint256',
      feeAddress: 'address',
    },
  };
}

/** A payment in a new block, then enough blocks on top for it to be confirmed. */
function payAndConfirm(
  link: Link,
  amount: bigint,
  result: { tokenAddress?: string; to?: string } = {},
): TronGridEventItem {
  const event = paymentEvent(mine(1), link, amount, result);
  fake.addEvent(event);
  mine(CONFIRMATIONS);
  return event;
}

/** Sends the outbox and returns the deliveries of one payment's three events. */
async function deliver(): Promise<Map<string, Record<string, unknown>>> {
  expect(await dispatcher.runOnce()).toBe(3);
  const received = await receiver.waitFor(3);
  expect(received).toHaveLength(3);
  return new Map(received.map((r) => [String(r.body.event), r.body]));
}

describe('Tron payment detection', () => {
  it('records a payment once its block is 19 deep and sends payment.confirmed, .client_id and .checkout', async () => {
    const link = await createLink('25.5');
    const block = mine(1);
    const event = paymentEvent(block, link, 25_500_000n);
    fake.addEvent(event);
    mine(CONFIRMATIONS - 1);

    // 18 blocks on top: one short of the depth.
    expect(await indexer.tick()).toEqual({
      scannedTo: BigInt(block - 1),
      recorded: 0,
      rolledBack: 0,
    });
    expect(await paymentsOf(event.transaction_id)).toEqual([]);
    expect(await requestStatus(link.requestId)).toMatchObject({
      status: 'pending',
      totalAmountPaid: '0',
    });
    expect(await dispatcher.runOnce()).toBe(0);

    mine(1);
    expect(await indexer.tick()).toEqual({ scannedTo: BigInt(block), recorded: 1, rolledBack: 0 });

    expect(await requestStatus(link.requestId)).toMatchObject({
      status: 'paid',
      hasBeenPaid: true,
      totalAmountPaid: '25.5',
    });
    expect(await linkStatusCode(link.token)).toBe(409);
    const [payment, ...others] = await paymentsOf(event.transaction_id);
    expect(others).toEqual([]);
    expect(payment).toMatchObject({
      amount: '25.5',
      sourceNetwork: 'tron',
      sourceTxHash: event.transaction_id,
      paymentCurrency: 'USDT-tron',
      payerAddress: PAYER,
      request: { requestId: link.requestId, hasBeenPaid: true },
    });
    const deliveries = await deliver();
    expect([...deliveries.keys()].sort()).toEqual([
      'payment.confirmed',
      'payment.confirmed.checkout',
      'payment.confirmed.client_id',
    ]);
    expect(deliveries.get('payment.confirmed')).toMatchObject({
      requestId: link.requestId,
      amount: '25.5',
      totalAmountPaid: '25.5',
      expectedAmount: '25.5',
      txHash: event.transaction_id,
      payerAddress: PAYER,
      payee: PAYEE,
      network: 'tron',
      paymentCurrency: 'USDT-tron',
      // When we recorded it, not the block's time (2026-01-01 here).
      timestamp: t.clock.now().toISOString(),
      fees: [],
      explorer: `https://tronscan.org/#/transaction/${event.transaction_id}`,
      clientId: tenant.backendClientId,
      origin: null,
    });
    expect(timestampOf(block)).not.toBe(t.clock.now().getTime());
    expect(deliveries.get('payment.confirmed.client_id')).toMatchObject({
      txHash: event.transaction_id,
      payerAddress: PAYER,
      clientId: tenant.backendClientId,
    });
    expect(deliveries.get('payment.confirmed.checkout')).toMatchObject({
      txHash: event.transaction_id,
      payerAddress: PAYER,
      securePaymentToken: link.token,
    });
    // The sender's 20 bytes, and every TronGrid call carried the key.
    expect(tronToEvm(PAYER).toLowerCase()).toBe(`0x${PAYER_HEX41.slice(2)}`);
    expect(fake.requests.every((r) => r.headers['tron-pro-api-key'] === API_KEY)).toBe(true);

    expect((await indexer.tick()).recorded).toBe(0);
    expect(await dispatcher.runOnce()).toBe(0);
  });

  it('records nothing for the right reference with the wrong token or to the wrong payee', async () => {
    const link = await createLink('10');
    const wrongToken = payAndConfirm(link, 10_000_000n, { tokenAddress: USDC });
    const wrongPayee = payAndConfirm(link, 10_000_000n, { to: STRANGER });

    const result = await indexer.tick();

    expect(result).toMatchObject({ recorded: 0 });
    expect(result.scannedTo).toBeGreaterThanOrEqual(BigInt(wrongPayee.block_number));
    expect(await paymentsOf(wrongToken.transaction_id)).toEqual([]);
    expect(await paymentsOf(wrongPayee.transaction_id)).toEqual([]);
    expect(await requestStatus(link.requestId)).toMatchObject({
      status: 'pending',
      totalAmountPaid: '0',
    });
    expect(await linkStatusCode(link.token)).toBe(200);
    expect(await dispatcher.runOnce()).toBe(0);

    // The same reference in the right token to the payee is found: the two were not missed.
    const right = payAndConfirm(link, 10_000_000n);
    expect((await indexer.tick()).recorded).toBe(1);
    expect(await paymentsOf(right.transaction_id)).toHaveLength(1);
    expect((await deliver()).get('payment.confirmed')).toMatchObject({
      txHash: right.transaction_id,
      totalAmountPaid: '10',
    });
  });

  it('sends payment.partial for less than the amount, then payment.confirmed with the total', async () => {
    const link = await createLink('30');
    const part = payAndConfirm(link, 12_000_000n);

    expect((await indexer.tick()).recorded).toBe(1);

    expect(await requestStatus(link.requestId)).toMatchObject({
      status: 'partially_paid',
      hasBeenPaid: false,
      totalAmountPaid: '12',
    });
    expect(await linkStatusCode(link.token)).toBe(200);
    expect(await paymentsOf(part.transaction_id)).toHaveLength(1);
    const partial = await deliver();
    expect([...partial.keys()].sort()).toEqual([
      'payment.partial',
      'payment.partial.checkout',
      'payment.partial.client_id',
    ]);
    expect(partial.get('payment.partial')).toMatchObject({
      amount: '12',
      totalAmountPaid: '12',
      expectedAmount: '30',
      txHash: part.transaction_id,
      payerAddress: PAYER,
    });

    receiver.received.length = 0;
    const rest = payAndConfirm(link, 18_000_000n);
    expect((await indexer.tick()).recorded).toBe(1);
    expect(await requestStatus(link.requestId)).toMatchObject({
      status: 'paid',
      totalAmountPaid: '30',
    });
    expect(await linkStatusCode(link.token)).toBe(409);
    expect((await deliver()).get('payment.confirmed')).toMatchObject({
      amount: '18',
      totalAmountPaid: '30',
      txHash: rest.transaction_id,
    });
  });

  it('records nothing new when a restarted indexer is served the same event again', async () => {
    const link = await createLink('7');
    const event = payAndConfirm(link, 7_000_000n);
    expect((await indexer.tick()).recorded).toBe(1);
    await deliver();

    // A restart that lost its progress (an older checkpoint restored), with an index that now
    // lists the event twice: the event's range is scanned again by a new process.
    await indexer.stop();
    ({ indexer, lock } = buildIndexer());
    expect(await lock.acquire()).toBe(true);
    await t.db
      .update(chainCheckpoints)
      .set({ lastBlock: BigInt(event.block_number - 1) })
      .where(eq(chainCheckpoints.network, 'tron'));
    fake.addEvent(event);
    const seen = fake.requests.length;

    expect(await indexer.tick()).toEqual({
      scannedTo: BigInt(head - CONFIRMATIONS),
      recorded: 0,
      rolledBack: 0,
    });

    const served = fake.requests
      .slice(seen)
      .filter((r) => r.path === `/v1/contracts/${PROXY}/events`)
      .filter(
        (r) =>
          Number(r.query.min_block_timestamp) <= event.block_timestamp &&
          event.block_timestamp <= Number(r.query.max_block_timestamp),
      );
    expect(served).toHaveLength(1);
    expect(await paymentsOf(event.transaction_id)).toHaveLength(1);
    expect(await requestStatus(link.requestId)).toMatchObject({
      status: 'paid',
      totalAmountPaid: '7',
    });
    expect(await dispatcher.runOnce()).toBe(0);
  });

  it.each([
    ['the head', '/wallet/getnowblock'],
    ['a block', '/wallet/getblockbynum'],
    ['the events', `/v1/contracts/${PROXY}/events`],
    ['the sender', '/wallet/gettransactionbyid'],
  ])(
    'rejects a tick when TronGrid answers 500 for %s, and the next tick records the payment once',
    async (_what, path) => {
      const link = await createLink('5');
      const event = payAndConfirm(link, 5_000_000n);
      failNextCallTo = path;

      await expect(indexer.tick()).rejects.toMatchObject({ name: 'TronGridError', status: 500 });

      expect(failNextCallTo).toBeNull();
      // The checkpoint's block is asked for alongside a database read: the failed call is among the last two.
      expect(fake.requests.slice(-2).map((r) => r.path)).toContain(path);
      expect(await paymentsOf(event.transaction_id)).toEqual([]);
      expect(await requestStatus(link.requestId)).toMatchObject({ status: 'pending' });
      expect(await dispatcher.runOnce()).toBe(0);

      expect((await indexer.tick()).recorded).toBe(1);
      expect((await indexer.tick()).recorded).toBe(0);

      expect(await paymentsOf(event.transaction_id)).toHaveLength(1);
      expect(await requestStatus(link.requestId)).toMatchObject({
        status: 'paid',
        totalAmountPaid: '5',
      });
      expect((await deliver()).get('payment.confirmed')).toMatchObject({
        txHash: event.transaction_id,
        totalAmountPaid: '5',
      });
      expect(await dispatcher.runOnce()).toBe(0);
    },
  );
});
