import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../base/errors.ts';
import { SecretText } from '../config/crosschain.ts';
import { type FakeOfframp, startFakeOfframp } from '../sandbox/offramp/fake-offramp.ts';
import { createOfframpProvider } from './provider.ts';

/** The provider adapter against the fake's real HTTP server: answers, refusals, failures. */

let fake: FakeOfframp;
beforeAll(async () => {
  fake = await startFakeOfframp({ webhookSecret: 'x', apiKey: 'right-key', stepDelayMs: null });
});
afterAll(() => fake.close());

const order = {
  idempotencyKey: 'request-1:details-1',
  rail: 'sepolia',
  currency: 'usdc',
  amount: '12.5',
  externalAccountId: 'acct-1',
  clientReferenceId: `01${'a'.repeat(64)}`,
};

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return `${error.code}: ${error.message}`;
}

describe('the off-ramp provider adapter', () => {
  it('creates a transfer and answers the same one to the same idempotency key', async () => {
    const provider = createOfframpProvider({
      url: fake.url,
      apiKey: new SecretText('right-key'),
      timeoutMs: 5_000,
    });
    const first = await provider.createTransfer(order);
    expect(first.id).toMatch(/^tr_/);
    expect(first.depositAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await provider.createTransfer(order)).toEqual(first);
    const other = await provider.createTransfer({
      ...order,
      idempotencyKey: 'request-2:details-1',
    });
    expect(other.depositAddress).not.toBe(first.depositAddress);
  });

  it('sorts refusals (4xx) from failures (unreachable, 5xx), never naming the URL or key', async () => {
    const wrongKey = createOfframpProvider({
      url: fake.url,
      apiKey: new SecretText('wrong-key'),
      timeoutMs: 5_000,
    });
    expect(await codeOf(wrongKey.createTransfer(order))).toBe(
      'offramp_refused: The off-ramp provider refused the transfer (HTTP 401)',
    );
    const nowhere = createOfframpProvider({
      url: 'http://127.0.0.1:0',
      apiKey: null,
      timeoutMs: 2_000,
    });
    expect(await codeOf(nowhere.createTransfer(order))).toBe(
      'offramp_unavailable: The off-ramp provider could not be reached; try again shortly',
    );
    const broken = createOfframpProvider(
      { url: `${fake.url}/nothing`, apiKey: null, timeoutMs: 2_000 },
      async () => new Response('oops', { status: 502 }),
    );
    expect(await codeOf(broken.createTransfer(order))).toBe(
      'offramp_unavailable: The off-ramp provider answered HTTP 502; try again shortly',
    );
    const nonsense = createOfframpProvider(
      { url: fake.url, apiKey: null, timeoutMs: 2_000 },
      async () => Response.json({ id: 'x' }, { status: 201 }),
    );
    expect(await codeOf(nonsense.createTransfer(order))).toBe(
      'offramp_unavailable: The off-ramp provider gave an answer that is not one; try again shortly',
    );
  });
});
