import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ContractFunctionExecutionError, ContractFunctionRevertedError } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { testConfig } from '../../test/app.ts';
import { AppError } from '../base/errors.ts';
import { type ChainClients, createChainClients } from './clients.ts';
import { createChainRegistry } from './registry.ts';

/**
 * A network's reads against a node on loopback that never answers (a fault injected): a read
 * fails with `chain_rpc_failed` after one RPC timeout, although the transport retries the
 * timed-out call, so a route's caller waits one timeout, not two.
 */

const TIMEOUT_MS = 400;
let server: Server;
let url: string;
let calls = 0;
const held = new Set<ServerResponse>();

beforeAll(async () => {
  server = createServer((request, response) => {
    calls++;
    request.resume();
    held.add(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const response of held) response.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('chain reads against a node that hangs', () => {
  it('fail with chain_rpc_failed within one timeout, retries included', async () => {
    const config = testConfig({ RPC_URL_BASE: url });
    const clients = createChainClients({
      config,
      chains: createChainRegistry(config),
      rpcTimeoutMs: TIMEOUT_MS,
    });
    const started = performance.now();
    const error = await clients
      .read('base', (client) => client.getBlockNumber({ cacheTime: 0 }))
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('chain_rpc_failed');
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    // Two timeouts and the retry's delay, without the bound.
    expect(elapsed).toBeLessThan(TIMEOUT_MS * 1.5);
    expect(calls).toBeGreaterThanOrEqual(1);
  });
});

/** A node on loopback that hangs until told to answer every call with block 42. */
async function startNode() {
  const node = { url: '', requests: 0, healthy: false, close: async () => {} };
  const waiting = new Set<ServerResponse>();
  const answering = createServer((request, response) => {
    node.requests++;
    request.resume();
    request.on('end', () => {
      if (!node.healthy) {
        waiting.add(response);
        return;
      }
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x2a' }));
    });
  });
  await new Promise<void>((resolve) => answering.listen(0, '127.0.0.1', resolve));
  node.url = `http://127.0.0.1:${(answering.address() as AddressInfo).port}`;
  node.close = async () => {
    for (const response of waiting) response.destroy();
    answering.closeAllConnections();
    await new Promise((resolve) => answering.close(resolve));
  };
  return node;
}

describe('the read breaker of a network whose node hangs', () => {
  const FAILURES = 3;
  const HALF_OPEN_MS = 30_000;
  // A bare request: getBlockNumber would share a read still in flight (viem's promise cache).
  const blockNumber = (clients: ChainClients) =>
    clients.read('base', (client) => client.request({ method: 'eth_blockNumber' }));
  const failing = async (clients: ChainClients) => {
    const started = performance.now();
    const error = await blockNumber(clients).then(
      () => null,
      (caught: unknown) => caught,
    );
    if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
    return { error, ms: performance.now() - started };
  };

  const nodes: Awaited<ReturnType<typeof startNode>>[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const node of nodes.splice(0)) await node.close();
  });

  it('opens after its failures in a row, then answers at once without asking the node', async () => {
    // Only Date is faked: cockatiel times its open period with it; the timeouts stay real.
    vi.useFakeTimers({ toFake: ['Date'] });
    const node = await startNode();
    nodes.push(node);
    const config = testConfig({ RPC_URL_BASE: node.url });
    const clients = createChainClients({
      config,
      chains: createChainRegistry(config),
      rpcTimeoutMs: TIMEOUT_MS,
      breaker: { failures: FAILURES, halfOpenMs: HALF_OPEN_MS },
    });
    for (let i = 0; i < FAILURES; i++) {
      const { error, ms } = await failing(clients);
      expect(error.code).toBe('chain_rpc_failed');
      expect(error.statusCode).toBe(503);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    }
    // Each timed-out read asked the node once, or twice with the transport's retry.
    const asked = node.requests;
    expect(asked).toBeGreaterThanOrEqual(FAILURES);
    expect(asked).toBeLessThanOrEqual(FAILURES * 2);
    // Open: the next reads fail at once, the node asked nothing more.
    for (let i = 0; i < 5; i++) {
      const { error, ms } = await failing(clients);
      expect(error.code).toBe('chain_rpc_failed');
      expect(ms).toBeLessThan(TIMEOUT_MS / 4);
      expect(error.headers['retry-after']).toBe(String(HALF_OPEN_MS / 1000));
    }
    expect(node.requests).toBe(asked);
    // Ten seconds on, the remaining cool-off shrinks with them.
    vi.setSystemTime(Date.now() + 10_000);
    expect((await failing(clients)).error.headers['retry-after']).toBe('20');
    expect(node.requests).toBe(asked);
  });

  it('lets one probe through once its period ends, and closes when the node answers', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const node = await startNode();
    nodes.push(node);
    const config = testConfig({ RPC_URL_BASE: node.url });
    const clients = createChainClients({
      config,
      chains: createChainRegistry(config),
      rpcTimeoutMs: TIMEOUT_MS,
      breaker: { failures: FAILURES, halfOpenMs: HALF_OPEN_MS },
    });
    for (let i = 0; i < FAILURES; i++) await failing(clients);
    const asked = node.requests;
    node.healthy = true;
    // Still open although the node is back: nothing is asked before the period ends.
    expect((await failing(clients)).ms).toBeLessThan(TIMEOUT_MS / 4);
    expect(node.requests).toBe(asked);
    vi.setSystemTime(Date.now() + HALF_OPEN_MS);
    // The probe reaches the node, and its success closes the breaker: every read after does.
    for (let i = 0; i < 3; i++) {
      expect(await blockNumber(clients)).toBe('0x2a');
    }
    expect(node.requests).toBe(asked + 3);
  });

  it('does not count a revert: the node answered as it should', async () => {
    const config = testConfig({ RPC_URL_BASE: url });
    let reverted = 0;
    const clients = createChainClients({
      config,
      chains: createChainRegistry(config),
      rpcTimeoutMs: TIMEOUT_MS,
      breaker: { failures: 1, halfOpenMs: HALF_OPEN_MS },
    });
    for (let i = 0; i < 3; i++) {
      const error = await clients
        .read('base', async () => {
          reverted++;
          throw new ContractFunctionExecutionError(
            new ContractFunctionRevertedError({ abi: [], functionName: 'balanceOf' }),
            { abi: [], functionName: 'balanceOf' },
          );
        })
        .catch((caught: unknown) => caught);
      expect((error as AppError).code).toBe('chain_rpc_failed');
    }
    // Each read ran: the breaker stayed closed.
    expect(reverted).toBe(3);
  });
});
