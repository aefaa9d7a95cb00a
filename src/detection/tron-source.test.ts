import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeTronGrid,
  startFakeTronGrid,
  type TronGridEventItem,
} from '../../test/fake-tron-grid.ts';
import { tronToEvm } from '../chains/tron-address.ts';
import { createTronGridClient, TronGridError } from '../chains/tron-grid.ts';
import { referenceTopic } from '../payments/references.ts';
import { createTronBlockSource } from './tron-source.ts';
import type { DetectedPayment } from './types.ts';

// Real mainnet facts (contracts.md §8).
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const PROXY = 'TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd';
const PAYEE = 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8';
const FEE_TAKER = 'TRZbXXuLd3HW5utzVysA3rpLgU7sVBrd1D';
const PAYER_HEX41 = '41704833c02883b3261f7baf62f8cb19b4b0c2e64e';
const PAYER = 'TLCuBEirVzB6V4menLZKw1jfBTFMZbuKq7';
const ZERO_EVM = `0x${'0'.repeat(40)}`;
const API_KEY = 'test-key-5f1c9a';

/** Tron makes a block every 3 s; heights past the proxy's creation block. */
const FIRST_BLOCK = 80_000_000;
const FIRST_TIMESTAMP = Date.UTC(2026, 0, 1);
const BLOCK_INTERVAL_MS = 3_000;

const REFERENCE = 'a0098add01acc736';
const TOPIC = referenceTopic(REFERENCE);

let fake: FakeTronGrid;
/** The hash each added block was given, by height. */
let hashes: Map<number, string>;

beforeEach(async () => {
  fake = await startFakeTronGrid();
  hashes = new Map();
});

afterEach(async () => {
  await fake.close();
});

function evmHex(base58: string): string {
  return tronToEvm(base58).toLowerCase();
}

/** Block ids start with the height, as Tron's do. */
function blockHash(number: number): string {
  return number.toString(16).padStart(16, '0') + randomBytes(24).toString('hex');
}

function addBlocks(from: number, to: number): void {
  for (let n = from; n <= to; n++) {
    const hash = blockHash(n);
    hashes.set(n, hash);
    fake.addBlock({
      number: n,
      timestamp: FIRST_TIMESTAMP + (n - FIRST_BLOCK) * BLOCK_INTERVAL_MS,
      hash,
    });
  }
}

function paymentEvent(
  block: number,
  overrides: Partial<TronGridEventItem> & { result?: Record<string, string> } = {},
): TronGridEventItem {
  const { result, ...rest } = overrides;
  return {
    transaction_id: randomBytes(32).toString('hex'),
    block_number: block,
    block_timestamp: FIRST_TIMESTAMP + (block - FIRST_BLOCK) * BLOCK_INTERVAL_MS,
    event_index: 0,
    event_name: 'TransferWithReferenceAndFee',
    contract_address: PROXY,
    result: {
      tokenAddress: evmHex(USDT),
      to: evmHex(PAYEE),
      amount: '1000000',
      paymentReference: TOPIC.slice(2),
      feeAmount: '5000000',
      feeAddress: evmHex(FEE_TAKER),
      ...result,
    },
    result_type: {
      tokenAddress: 'address',
      to: 'address',
      amount: 'uint256',
      paymentReference: 'bytes',
      feeAmount: 'uint256',
      feeAddress: 'address',
    },
    ...rest,
  };
}

function source(apiKey?: string) {
  const client = createTronGridClient({
    baseUrl: fake.url,
    ...(apiKey === undefined ? {} : { apiKey }),
  });
  return createTronBlockSource({ client, proxyAddress: PROXY, network: 'tron' });
}

describe('Tron block source over TronGrid', () => {
  it('turns fee-proxy events in range into payments with base58 addresses and bigint amounts', async () => {
    addBlocks(FIRST_BLOCK, FIRST_BLOCK + 5);
    const big = (2n ** 200n + 7n).toString();
    const plain = paymentEvent(FIRST_BLOCK + 2, { event_index: 3 });
    // Results come with `0x` hex addresses or full-node `41…` ones, topics with or without 0x.
    const other = paymentEvent(FIRST_BLOCK + 4, {
      result: {
        tokenAddress: `41${evmHex(USDT).slice(2)}`,
        amount: big,
        paymentReference: TOPIC.toUpperCase().replace('0X', '0x'),
        feeAmount: '0',
      },
    });
    fake.addEvent(plain);
    fake.addEvent(other);

    const payments = await source().events(BigInt(FIRST_BLOCK), BigInt(FIRST_BLOCK + 5));

    expect(payments).toEqual([
      {
        network: 'tron',
        txHash: plain.transaction_id,
        logIndex: 3,
        blockNumber: BigInt(FIRST_BLOCK + 2),
        blockHash: hashes.get(FIRST_BLOCK + 2),
        timestamp: new Date(plain.block_timestamp),
        referenceTopic: TOPIC,
        tokenAddress: USDT,
        payee: PAYEE,
        amount: 1_000_000n,
        feeAmount: 5_000_000n,
        feeAddress: FEE_TAKER,
        payerAddress: null,
        payerEoaAddress: null,
      },
      {
        network: 'tron',
        txHash: other.transaction_id,
        logIndex: 0,
        blockNumber: BigInt(FIRST_BLOCK + 4),
        blockHash: hashes.get(FIRST_BLOCK + 4),
        timestamp: new Date(other.block_timestamp),
        referenceTopic: TOPIC,
        tokenAddress: USDT,
        payee: PAYEE,
        amount: 2n ** 200n + 7n,
        feeAmount: 0n,
        feeAddress: FEE_TAKER,
        payerAddress: null,
        payerEoaAddress: null,
      },
    ]);
    expect(TOPIC).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('leaves out events of blocks outside [from, to], other events and other contracts', async () => {
    addBlocks(FIRST_BLOCK, FIRST_BLOCK + 10);
    const inside = [FIRST_BLOCK + 3, FIRST_BLOCK + 5, FIRST_BLOCK + 7].map((n) => paymentEvent(n));
    for (const event of inside) fake.addEvent(event);
    fake.addEvent(paymentEvent(FIRST_BLOCK + 2));
    fake.addEvent(paymentEvent(FIRST_BLOCK + 8));
    fake.addEvent(paymentEvent(FIRST_BLOCK + 5, { event_name: 'OwnershipTransferred' }));
    fake.addEvent(paymentEvent(FIRST_BLOCK + 5, { contract_address: USDT }));
    // An index that stamps an event with a height its timestamp window does not match.
    fake.addEvent(
      paymentEvent(FIRST_BLOCK + 9, {
        block_timestamp: FIRST_TIMESTAMP + 5 * BLOCK_INTERVAL_MS,
      }),
    );

    const payments = await source().events(BigInt(FIRST_BLOCK + 3), BigInt(FIRST_BLOCK + 7));

    expect(payments.map((p) => p.txHash)).toEqual(inside.map((e) => e.transaction_id));
    expect(payments.map((p) => p.blockNumber)).toEqual(inside.map((e) => BigInt(e.block_number)));
  });

  it('returns every event of a range holding more than one page of 200', async () => {
    addBlocks(FIRST_BLOCK, FIRST_BLOCK + 9);
    const added: TronGridEventItem[] = [];
    for (let i = 0; i < 450; i++) {
      const event = paymentEvent(FIRST_BLOCK + (i % 10), { event_index: i });
      added.push(event);
      fake.addEvent(event);
    }

    const payments = await source().events(BigInt(FIRST_BLOCK), BigInt(FIRST_BLOCK + 9));

    expect(payments).toHaveLength(450);
    expect(new Set(payments.map((p) => p.txHash))).toEqual(
      new Set(added.map((e) => e.transaction_id)),
    );
    const pages = fake.requests.filter((r) => r.path.endsWith('/events'));
    expect(pages.map((r) => [r.query.limit, r.query.fingerprint !== undefined])).toEqual([
      ['200', false],
      ['200', true],
      ['200', true],
    ]);
    expect(pages[0]?.path).toBe(`/v1/contracts/${PROXY}/events`);
    expect(pages[0]?.query).toMatchObject({
      event_name: 'TransferWithReferenceAndFee',
      order_by: 'block_timestamp,asc',
    });
    // Each of the ten blocks fetched once: the two ends for the window, the rest for hashes.
    const blockCalls = fake.requests.filter((r) => r.path === '/wallet/getblockbynum');
    expect(blockCalls.map((r) => (r.body as { num: number }).num).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => FIRST_BLOCK + i),
    );
  });

  it('reports the head and the hash at a height', async () => {
    addBlocks(FIRST_BLOCK, FIRST_BLOCK + 4);
    const tron = source();

    expect(await tron.head()).toBe(BigInt(FIRST_BLOCK + 4));
    const hash = await tron.blockHash(BigInt(FIRST_BLOCK + 1));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash.startsWith((FIRST_BLOCK + 1).toString(16).padStart(16, '0'))).toBe(true);
    expect(fake.requests.find((r) => r.path === '/wallet/getblockbynum')?.body).toEqual({
      num: FIRST_BLOCK + 1,
    });
  });

  it('refuses a block without a time, save the genesis block', async () => {
    addBlocks(0, 0);
    addBlocks(FIRST_BLOCK, FIRST_BLOCK + 1);
    // Fault injection: the node's answers lose their time, as protobuf JSON drops a zero.
    const timeless = createTronGridClient({
      baseUrl: fake.url,
      fetch: async (input, init) => {
        const answer = (await (await fetch(input, init)).json()) as {
          block_header: { raw_data: Record<string, unknown> };
        };
        delete answer.block_header.raw_data.timestamp;
        return new Response(JSON.stringify(answer), { status: 200 });
      },
    });
    const tron = createTronBlockSource({ client: timeless, proxyAddress: PROXY, network: 'tron' });

    expect(await timeless.getBlockByNumber(0n)).toMatchObject({
      number: 0n,
      timestamp: new Date(0),
    });
    // Taken as 1970, the last block would turn the events' window upside down: an empty range.
    await expect(tron.events(BigInt(FIRST_BLOCK), BigInt(FIRST_BLOCK + 1))).rejects.toMatchObject({
      name: 'TronGridError',
      reason: 'bad_response',
    });
    await expect(tron.head()).rejects.toThrow('a block without a time');
  });

  it('rejects a height the node does not have', async () => {
    addBlocks(FIRST_BLOCK, FIRST_BLOCK + 1);

    await expect(source().blockHash(BigInt(FIRST_BLOCK + 2))).rejects.toThrow(TronGridError);
  });

  it('resolves a transaction sender to base58 as both payers, and refuses an unknown one', async () => {
    const txId = randomBytes(32).toString('hex');
    fake.setSender(txId, PAYER_HEX41);
    const tron = source();
    const event = (txHash: string): DetectedPayment => ({
      network: 'tron',
      txHash,
      logIndex: 0,
      blockNumber: 1n,
      blockHash: '0x',
      timestamp: new Date(0),
      referenceTopic: TOPIC,
      tokenAddress: USDT,
      payee: PAYEE,
      amount: 1n,
      feeAmount: 0n,
      feeAddress: null,
      payerAddress: null,
      payerEoaAddress: null,
    });

    expect(await tron.payers(event(txId))).toEqual({
      payerAddress: PAYER,
      payerEoaAddress: PAYER,
    });
    // The node answers `{}`: behind the index, or broken. Recorded as "no payer", the payment
    // would skip the payer's screening for good; a failed read is asked again next round.
    await expect(tron.payers(event(randomBytes(32).toString('hex')))).rejects.toMatchObject({
      name: 'TronGridError',
      reason: 'bad_response',
    });
    expect(fake.requests[0]).toMatchObject({
      method: 'POST',
      path: '/wallet/gettransactionbyid',
      body: { value: txId },
    });
  });

  it('sends the API key header on every call, and none without a key', async () => {
    addBlocks(FIRST_BLOCK, FIRST_BLOCK + 1);
    fake.addEvent(paymentEvent(FIRST_BLOCK + 1));

    await source(API_KEY).events(BigInt(FIRST_BLOCK), BigInt(FIRST_BLOCK + 1));
    await source(API_KEY).head();
    const keyed = fake.requests.length;
    await source().head();

    expect(keyed).toBeGreaterThanOrEqual(4);
    for (const request of fake.requests.slice(0, keyed))
      expect(request.headers['tron-pro-api-key']).toBe(API_KEY);
    expect(fake.requests.at(-1)?.headers['tron-pro-api-key']).toBeUndefined();
  });

  it('rejects with TronGridError carrying the status when the server answers 500', async () => {
    addBlocks(FIRST_BLOCK, FIRST_BLOCK + 1);
    fake.failNext(1, 500);

    const error = await source(API_KEY)
      .head()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TronGridError);
    expect(error).toMatchObject({ status: 500, reason: 'http' });
    expect(String((error as Error).message)).not.toContain(API_KEY);
    // The failure was one answer, not a broken client.
    expect(await source(API_KEY).head()).toBe(BigInt(FIRST_BLOCK + 1));
  });

  it('fails the whole range when a later events page answers 503', async () => {
    addBlocks(FIRST_BLOCK, FIRST_BLOCK + 1);
    for (let i = 0; i < 250; i++) fake.addEvent(paymentEvent(FIRST_BLOCK, { event_index: i }));
    const client = createTronGridClient({
      baseUrl: fake.url,
      // Fault injection: the page after the first one fails.
      fetch: async (input, init) => {
        if (String(input).includes('fingerprint=')) fake.failNext(1, 503);
        return fetch(input, init);
      },
    });
    const tron = createTronBlockSource({ client, proxyAddress: PROXY, network: 'tron' });

    await expect(tron.events(BigInt(FIRST_BLOCK), BigInt(FIRST_BLOCK + 1))).rejects.toMatchObject({
      name: 'TronGridError',
      status: 503,
    });
  });

  it('asks for confirmed events only when told to; the source asks for all', async () => {
    addBlocks(FIRST_BLOCK, FIRST_BLOCK);
    fake.addEvent(paymentEvent(FIRST_BLOCK));
    const client = createTronGridClient({ baseUrl: fake.url });
    const at = new Date(FIRST_TIMESTAMP);

    const confirmed = await client.contractEvents(PROXY, {
      eventName: 'TransferWithReferenceAndFee',
      minBlockTimestamp: at,
      maxBlockTimestamp: at,
      onlyConfirmed: true,
    });
    await source().events(BigInt(FIRST_BLOCK), BigInt(FIRST_BLOCK));

    expect(confirmed).toHaveLength(1);
    const pages = fake.requests.filter((r) => r.path.endsWith('/events'));
    expect(pages.map((r) => r.query.only_confirmed)).toEqual(['true', undefined]);
  });

  it('gives null for the zero fee address', async () => {
    addBlocks(FIRST_BLOCK, FIRST_BLOCK);
    fake.addEvent(paymentEvent(FIRST_BLOCK, { result: { feeAddress: ZERO_EVM, feeAmount: '0' } }));

    const [payment] = await source().events(BigInt(FIRST_BLOCK), BigInt(FIRST_BLOCK));

    expect(payment).toMatchObject({ feeAddress: null, feeAmount: 0n, payee: PAYEE });
  });

  it('turns a timeout and a body that is not JSON into TronGridError', async () => {
    const timingOut = createTronGridClient({
      baseUrl: fake.url,
      apiKey: API_KEY,
      fetch: async () => {
        throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      },
    });
    const html = createTronGridClient({
      baseUrl: fake.url,
      fetch: async () => new Response('<html>busy</html>', { status: 200 }),
    });

    await expect(timingOut.getNowBlock()).rejects.toMatchObject({
      name: 'TronGridError',
      reason: 'timeout',
      status: null,
    });
    await expect(html.getNowBlock()).rejects.toMatchObject({
      reason: 'bad_response',
      status: 200,
    });
  });
});
