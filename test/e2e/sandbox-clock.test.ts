import { custom } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.ts';
import type { Poller } from '../../src/base/poller.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import type { ClockResult } from '../../src/sandbox/clock.ts';
import { createIdleMiner } from '../../src/sandbox/idle-miner.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { processEnv, runCli } from '../process.ts';

/**
 * `payreq sandbox clock` and `payreq sandbox clock advance <duration>`, run as the CLI processes
 * they are against a server's sandbox chain over HTTP, with the chain's idle miner running as
 * the server's does (faster): the latest block's time moves by the asked amount, and the
 * miner's later blocks keep it.
 */

let chain: LocalChain;
let t: TestApp;
let baseUrl: string;
let miner: Poller;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 31337 });
  t = await createTestApp({
    env: { SANDBOX: 'true' },
    transports: { sandbox: custom(chain.provider, { retryCount: 0 }) },
    sandbox: { provider: chain.provider },
  });
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  miner = createIdleMiner({
    provider: chain.provider,
    logger: createLogger('silent'),
    idleMs: 200,
  });
  miner.start();
}, 120_000);
afterAll(async () => {
  await miner?.stop();
  await t?.close();
  await chain?.close();
});

async function clock(...args: string[]): Promise<ClockResult> {
  const result = await runCli(
    ['sandbox', 'clock', ...args, '--url', baseUrl, '--json'],
    processEnv(),
  );
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as ClockResult;
}

const latestTime = async () =>
  Number((await chain.client.getBlock({ blockTag: 'latest' })).timestamp);

describe('payreq sandbox clock', () => {
  it('prints the time of the chain’s latest block', async () => {
    const result = await runCli(['sandbox', 'clock', '--url', baseUrl], processEnv());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^Sandbox chain time: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z \(unix \d+, block \d+\)\n$/,
    );
    const { now } = await clock();
    expect(Math.abs(now.timestamp - (await latestTime()))).toBeLessThan(5);
  });

  it.each([
    ['2h', 7_200],
    ['90m', 5_400],
    ['7d', 604_800],
    ['45', 45],
  ])(
    'moves it on by %s, and the idle miner’s next blocks keep the shift',
    async (duration, seconds) => {
      const result = await clock('advance', duration);
      const { before, now, moved } = result;
      if (!before || moved === undefined) throw new Error('no time before the advance');
      // The asked amount, plus the wall-clock seconds since the block before (the miner's are recent).
      expect(moved).toBeGreaterThanOrEqual(seconds);
      expect(moved).toBeLessThan(seconds + 5);
      expect(now.block).toBeGreaterThan(before.block);
      await expect
        .poll(() => chain.client.getBlockNumber({ cacheTime: 0 }), { timeout: 5_000 })
        .toBeGreaterThan(BigInt(now.block));
      expect(await latestTime()).toBeGreaterThanOrEqual(now.timestamp);
    },
  );

  it('says what a duration is when it is not one', async () => {
    for (const [args, message] of [
      [['advance'], 'payreq: <duration> is required'],
      [
        ['advance', '2w'],
        'payreq: <duration> must be seconds or a number with s, m, h or d, such as 90m, 2h or 7d, up to ten years (got "2w")',
      ],
    ] as const) {
      const result = await runCli(['sandbox', 'clock', ...args, '--url', baseUrl], processEnv());
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(message);
    }
  });
});
