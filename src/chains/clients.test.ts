import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../test/app.ts';
import { AppError } from '../base/errors.ts';
import { createChainClients } from './clients.ts';
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
