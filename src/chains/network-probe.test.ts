import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogCapture, testConfig } from '../../test/app.ts';
import { freePort } from '../../test/process.ts';
import { systemClock } from '../base/clock.ts';
import { createLogger } from '../base/logger.ts';
import { type LocalChain, startLocalChain } from '../sandbox/chain.ts';
import { serveJsonRpc } from '../sandbox/rpc-server.ts';
import { createChainClients } from './clients.ts';
import { createNetworkProbe, type NetworkProbe } from './network-probe.ts';
import { createChainRegistry } from './registry.ts';
import { createTronGridClient } from './tron-grid.ts';

/**
 * The networks' start check over real RPCs on loopback: a local chain with Base's chain id,
 * served over HTTP, stands in for Base; the same chain named as Optimism's RPC is the wrong
 * chain; a port nobody listens on is an RPC that is down, until the chain is served there.
 */

let chain: LocalChain;
let served: { url: string; close(): Promise<void> } | undefined;
let late: { url: string; close(): Promise<void> } | undefined;
let probe: NetworkProbe | undefined;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 8453, walletCount: 1 });
  served = await serveJsonRpc(chain.provider);
}, 60_000);
afterAll(async () => {
  await probe?.stop();
  await late?.close();
  await served?.close();
  await chain.close();
});

describe('the networks’ start check', () => {
  it('names each network that does not answer as itself, once, until it does', async () => {
    const downPort = await freePort();
    const tronPort = await freePort();
    const config = testConfig({
      RPC_URL_BASE: `http://127.0.0.1:${downPort}`,
      RPC_URL_OPTIMISM: served?.url ?? '',
      RPC_URL_TRON: `http://127.0.0.1:${tronPort}`,
    });
    const chains = createChainRegistry(config);
    const logs = new LogCapture();
    probe = createNetworkProbe({
      chains,
      clients: createChainClients({ config, chains }),
      tron: createTronGridClient({ baseUrl: config.networks.tron.rpcUrl ?? '' }),
      logger: createLogger('info', logs),
      clock: systemClock,
      retryMs: 100,
    });
    const status = () => Object.fromEntries((probe?.status() ?? []).map((n) => [n.network, n]));
    expect(status()).toEqual({
      base: { network: 'base', status: 'checking', reason: 'not checked yet', checkedAt: null },
      optimism: expect.objectContaining({ status: 'checking' }),
      tron: expect.objectContaining({ status: 'checking' }),
    });

    probe.start();
    await expect.poll(() => status().base?.status).toBe('unreachable');
    await expect.poll(() => status().tron?.status).toBe('unreachable');
    expect(status()).toMatchObject({
      base: { status: 'unreachable', reason: 'its RPC did not answer (connection refused)' },
      optimism: { status: 'wrong_chain', reason: 'its RPC serves chain id 8453, not 10' },
      tron: { status: 'unreachable', reason: 'its RPC did not answer (connection refused)' },
    });
    // Retried every 100 ms, logged once each.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const warned = (network: string) =>
      logs.entries().filter((entry) => entry.level === 40 && entry.network === network);
    expect(warned('base').map((entry) => entry.msg)).toEqual([
      'network base (RPC_URL_BASE): its RPC did not answer (connection refused); serving meanwhile, /readyz answers 503 until it answers',
    ]);
    expect(warned('optimism')).toHaveLength(1);
    expect(warned('tron')).toHaveLength(1);
    // Nothing says where the RPC is: its URL may hold a key.
    expect(logs.text()).not.toContain(String(downPort));

    // Base's RPC comes up: ok from the next round, and said once.
    late = await serveJsonRpc(chain.provider, { port: downPort });
    await expect.poll(() => status().base?.status).toBe('ok');
    expect(status().base).toMatchObject({ reason: null, checkedAt: expect.any(String) });
    const recovered = logs.entries().filter((entry) => entry.network === 'base');
    expect(recovered.at(-1)?.msg).toBe('network base (RPC_URL_BASE) answers now');
    expect(status().optimism?.status).toBe('wrong_chain');
  });

  it('checks nothing when no network has an RPC', async () => {
    const config = testConfig();
    const chains = createChainRegistry(config);
    const quiet = createNetworkProbe({
      chains,
      clients: createChainClients({ config, chains }),
      tron: null,
      logger: createLogger('info', new LogCapture()),
      clock: systemClock,
    });
    quiet.start();
    expect(quiet.status()).toEqual([]);
    await quiet.stop();
  });
});
