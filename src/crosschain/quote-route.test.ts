import { getAddress, type Hex, zeroAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aggregatorConfig,
  CHAIN_A,
  CHAIN_B,
  FEE_PROXY_B,
  PAYEE,
  PAYER,
  REFERENCE,
  startFake,
  USDC_B,
  USDT_A,
} from '../../test/aggregator.ts';
import { createTestClock } from '../../test/app.ts';
import { AppError } from '../base/errors.ts';
import type { FakeAggregator } from '../sandbox/aggregator/fake-aggregator.ts';
import { createAggregator } from './aggregator.ts';
import type { Destination } from './destination-calls.ts';
import { createRouteQuoter } from './quote-route.ts';

/**
 * The quoter's memory, against the fake over HTTP on a clock the test moves: a route is served
 * again while it has time left, a step can be refreshed for an hour by the link it was handed
 * out for and no other, and a fresh route is checked before it is kept.
 */

const destination: Destination = {
  chainId: CHAIN_B,
  feeProxy: FEE_PROXY_B,
  token: USDC_B,
  payments: [
    {
      payee: PAYEE,
      amount: 5_000_000n,
      reference: REFERENCE,
      feeAmount: 0n,
      feeAddress: zeroAddress,
    },
  ],
};
const source = {
  chainId: CHAIN_A,
  token: USDT_A,
  wallet: PAYER,
  chainKey: 'ARBITRUM',
  tokenKey: 'USDT',
};

const clock = createTestClock(new Date('2026-11-29T12:00:00Z'));
let fake: FakeAggregator;

beforeAll(async () => {
  fake = await startFake({ now: () => clock.now().getTime(), quoteLifetimeSeconds: 300 });
});
afterAll(() => fake.close());

function quoter() {
  return createRouteQuoter({
    aggregator: createAggregator({ config: aggregatorConfig(fake) }),
    clock,
  });
}

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return `${error.code}: ${error.message}`;
}

describe('createRouteQuoter', () => {
  it('serves a route again until 15 s before its end, another wallet its own', async () => {
    const routes = quoter();
    const first = await routes.quote('link-1', source, destination);
    expect(first.expiresAt - first.fetchedAt.getTime() / 1000).toBe(120);
    clock.advance(100_000);
    expect(await routes.quote('link-1', source, destination)).toBe(first);
    const other = getAddress(`0x${'42'.repeat(20)}` as Hex);
    expect(await routes.quote('link-1', { ...source, wallet: other }, destination)).not.toBe(first);
    clock.advance(6_000);
    const fresh = await routes.quote('link-1', source, destination);
    expect(fresh).not.toBe(first);
  });

  it('refreshes a step for its own link within the hour, and for no other', async () => {
    const routes = quoter();
    const { step } = await routes.quote('link-2', source, destination);
    expect(await code(routes.refresh('link-3', step.id, destination))).toMatchInlineSnapshot(
      `"crosschain_route_gone: This cross-chain route is gone: ask /pay with chain and token for a new one"`,
    );
    clock.advance(3_000_000);
    const refreshed = await routes.refresh('link-2', step.id, destination);
    expect(refreshed.step.id).toBe(step.id);
    expect(refreshed.fetchedAt).toEqual(clock.now());
    clock.advance(3_600_000);
    expect(await code(routes.refresh('link-2', step.id, destination))).toContain(
      'crosschain_route_gone',
    );
  });

  it('asks again rather than serve a cached route that no longer pays the link as it is now', async () => {
    const routes = quoter();
    const first = await routes.quote('link-4', source, destination);
    const paidLess: Destination = {
      ...destination,
      payments: destination.payments.map((p) => ({ ...p, amount: 4_000_000n })),
    };
    const again = await routes.quote('link-4', source, paidLess);
    expect(again).not.toBe(first);
    expect(again.step.estimate.toAmount).not.toBe(first.step.estimate.toAmount);
  });
});
