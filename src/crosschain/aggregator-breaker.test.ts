import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  aggregatorConfig,
  CHAIN_A,
  CHAIN_B,
  quoteRequest,
  startFake,
} from '../../test/aggregator.ts';
import { AlternateStatusError } from '../base/errors.ts';
import type { FakeAggregator } from '../sandbox/aggregator/fake-aggregator.ts';
import { createAggregator } from './aggregator.ts';

/**
 * The aggregator failing: bounded calls, and the circuit breaker that answers 503 at once while
 * it fails and closes by itself. Time is the breaker's own: a half-open delay of a few tens of
 * milliseconds, waited out for real.
 */

const HALF_OPEN_MS = 40;
const OPEN_MESSAGE = 'Cross-chain routing is unavailable right now; try again shortly';
const STATUS_QUERY = { txHash: `0x${'ef'.repeat(32)}`, fromChain: CHAIN_A, toChain: CHAIN_B };

let fake: FakeAggregator;

beforeAll(async () => {
  fake = await startFake();
});
afterAll(() => fake.close());
afterEach(() => fake.recover());

async function unavailable(promise: Promise<unknown>): Promise<AlternateStatusError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AlternateStatusError)) throw new Error(`expected a 503, got ${error}`);
  expect(error).toMatchObject({ code: 'crosschain_unavailable', statusCode: 503 });
  return error;
}

function breakerAggregator(failures: number, halfOpenMs = HALF_OPEN_MS) {
  return createAggregator({
    config: aggregatorConfig(fake, {
      breakerFailures: failures,
      breakerHalfOpenMs: halfOpenMs,
      timeoutMs: 2_000,
    }),
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a failing aggregator', () => {
  it('answers 503 within the configured time when the aggregator hangs', async () => {
    const aggregator = createAggregator({ config: aggregatorConfig(fake, { timeoutMs: 150 }) });
    fake.fail({ kind: 'hang' });
    const started = performance.now();
    const error = await unavailable(aggregator.status(STATUS_QUERY));
    const took = performance.now() - started;
    expect(error.message).toBe(
      'The cross-chain routing service did not answer within 150 ms; try again shortly',
    );
    expect(took).toBeGreaterThanOrEqual(140);
    expect(took).toBeLessThan(1_500);
  });

  it('answers 503 for an aggregator error, and the aggregator still serves a slow answer in time', async () => {
    const aggregator = createAggregator({ config: aggregatorConfig(fake, { timeoutMs: 1_000 }) });
    fake.fail({ kind: 'error', status: 502 });
    const error = await unavailable(aggregator.quoteContractCalls(quoteRequest(1_000_000n)));
    expect(error.message).toBe(
      'The cross-chain routing service answered HTTP 502; try again shortly',
    );
    fake.fail({ kind: 'slow', delayMs: 50 });
    expect(await aggregator.status(STATUS_QUERY)).toMatchObject({ status: 'NOT_FOUND' });
  });

  it('answers 503 for an aggregator that cannot be reached', async () => {
    const gone = await startFake();
    await gone.close();
    const aggregator = createAggregator({ config: aggregatorConfig(gone) });
    const error = await unavailable(aggregator.status(STATUS_QUERY));
    expect(error.message).toBe(
      'The cross-chain routing service could not be reached; try again shortly',
    );
  });

  it('opens after the configured failures in a row and then answers 503 without asking', async () => {
    const aggregator = breakerAggregator(3, 60_000);
    fake.fail({ kind: 'error' });
    for (let i = 0; i < 3; i += 1) {
      const error = await unavailable(aggregator.status(STATUS_QUERY));
      expect(error.message).toBe(
        'The cross-chain routing service answered HTTP 503; try again shortly',
      );
    }
    expect(aggregator.breakerState()).toBe('open');
    fake.recover();
    const asked = fake.received.length;
    const started = performance.now();
    for (const call of [
      () => aggregator.status(STATUS_QUERY),
      () => aggregator.quoteContractCalls(quoteRequest(1_000_000n)),
    ]) {
      const error = await unavailable(call());
      expect(error.message).toBe(OPEN_MESSAGE);
      expect(error.headers).toEqual({ 'retry-after': '60' });
    }
    // At once: no request, no time allowed for one (2 s) waited.
    expect(performance.now() - started).toBeLessThan(500);
    expect(fake.received.length).toBe(asked);
  });

  it('counts failures in a row only: a success in between starts the count again', async () => {
    const aggregator = breakerAggregator(2);
    fake.fail({ kind: 'error' });
    await unavailable(aggregator.status(STATUS_QUERY));
    fake.recover();
    await aggregator.status(STATUS_QUERY);
    fake.fail({ kind: 'error' });
    await unavailable(aggregator.status(STATUS_QUERY));
    expect(aggregator.breakerState()).toBe('closed');
  });

  it('closes by itself once the half-open probe succeeds', async () => {
    const aggregator = breakerAggregator(1);
    fake.fail({ kind: 'error' });
    await unavailable(aggregator.status(STATUS_QUERY));
    expect(aggregator.breakerState()).toBe('open');
    fake.recover();
    await pause(HALF_OPEN_MS + 20);
    const asked = fake.received.length;
    expect(await aggregator.status(STATUS_QUERY)).toMatchObject({ status: 'NOT_FOUND' });
    expect(fake.received.length).toBe(asked + 1);
    expect(aggregator.breakerState()).toBe('closed');
    const step = await aggregator.quoteContractCalls(quoteRequest(1_000_000n));
    expect(step.tool).toBe('across');
  });

  it('holds other calls behind the half-open probe: they run once it succeeds', async () => {
    const aggregator = breakerAggregator(1);
    fake.fail({ kind: 'error' });
    await unavailable(aggregator.status(STATUS_QUERY));
    fake.fail({ kind: 'slow', delayMs: 100 });
    await pause(HALF_OPEN_MS + 20);
    const asked = fake.received.length;
    const probe = aggregator.status(STATUS_QUERY);
    const held = aggregator.status(STATUS_QUERY);
    await pause(20);
    expect(fake.received.length).toBe(asked + 1);
    expect(await probe).toMatchObject({ status: 'NOT_FOUND' });
    expect(await held).toMatchObject({ status: 'NOT_FOUND' });
    expect(fake.received.length).toBe(asked + 2);
    expect(aggregator.breakerState()).toBe('closed');
  });

  it('answers the held calls 503 without asking when the probe fails', async () => {
    const aggregator = createAggregator({
      config: aggregatorConfig(fake, {
        breakerFailures: 1,
        breakerHalfOpenMs: HALF_OPEN_MS,
        timeoutMs: 100,
      }),
    });
    fake.fail({ kind: 'error' });
    await unavailable(aggregator.status(STATUS_QUERY));
    fake.fail({ kind: 'hang' });
    await pause(HALF_OPEN_MS + 20);
    const asked = fake.received.length;
    const probe = unavailable(aggregator.status(STATUS_QUERY));
    const held = unavailable(aggregator.status(STATUS_QUERY));
    expect((await probe).message).toBe(
      'The cross-chain routing service did not answer within 100 ms; try again shortly',
    );
    expect((await held).message).toBe(OPEN_MESSAGE);
    expect(fake.received.length).toBe(asked + 1);
  });

  it('opens again when the probe fails, for another half-open period', async () => {
    const aggregator = breakerAggregator(1);
    fake.fail({ kind: 'error' });
    await unavailable(aggregator.status(STATUS_QUERY));
    await pause(HALF_OPEN_MS + 20);
    const asked = fake.received.length;
    const probe = await unavailable(aggregator.status(STATUS_QUERY));
    expect(probe.message).toBe(
      'The cross-chain routing service answered HTTP 503; try again shortly',
    );
    expect(fake.received.length).toBe(asked + 1);
    expect(aggregator.breakerState()).toBe('open');
    fake.recover();
    expect((await unavailable(aggregator.status(STATUS_QUERY))).message).toBe(OPEN_MESSAGE);
    expect(fake.received.length).toBe(asked + 1);
    await pause(HALF_OPEN_MS + 20);
    expect(await aggregator.status(STATUS_QUERY)).toMatchObject({ status: 'NOT_FOUND' });
    expect(aggregator.breakerState()).toBe('closed');
  });

  it('opens on timeouts as on errors', async () => {
    const aggregator = createAggregator({
      config: aggregatorConfig(fake, {
        timeoutMs: 50,
        breakerFailures: 2,
        breakerHalfOpenMs: 60_000,
      }),
    });
    fake.fail({ kind: 'hang' });
    await unavailable(aggregator.status(STATUS_QUERY));
    await unavailable(aggregator.status(STATUS_QUERY));
    const asked = fake.received.length;
    const error = await unavailable(aggregator.status(STATUS_QUERY));
    expect(error.message).toBe(OPEN_MESSAGE);
    expect(error.headers).toEqual({ 'retry-after': '60' });
    expect(fake.received.length).toBe(asked);
  });
});
