import { getAddress, keccak256, toHex } from 'viem';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { serveJsonRpc } from '../../src/sandbox/rpc-server.ts';
import {
  type BridgeWorld,
  balanceOf,
  createLink,
  fetchApi,
  payFromArbitrum,
  startBridgeWorld,
  until,
} from '../bridge-world.ts';
import { createAccountByCli, suiteDatabase } from '../faults.ts';
import {
  createDestinationByCli,
  MANY_PROCESSES,
  processEnv,
  type ServerProcess,
  startServer,
} from '../process.ts';

/**
 * A cross-chain transfer followed by a `payreq serve` process that is killed (SIGKILL: no
 * shutdown, no goodbye) while the transfer is pending is ended by the next process, from the
 * database alone: the first process's tracker asks the aggregator about the deposit and finds
 * it not done; the relayer fills it on Base while no payreq process runs; the restarted
 * process's detection sees the payment and its tracker ends the intent `executed`, once; the
 * payee has exactly the link's amount. Both processes read the two local chains over JSON-RPC on
 * loopback and the fake aggregator over HTTP (test/bridge-world.ts).
 */

const source = inject('testDatabase');
const cleanup: (() => Promise<void>)[] = [];
let world: BridgeWorld | undefined;
let server: ServerProcess | undefined;

afterAll(async () => {
  await server?.stop('SIGKILL');
  for (const step of cleanup.reverse()) await step();
  await world?.close();
});

/** The JSON log lines of `output` whose message is `message`. */
function logged(output: string, message: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.includes(message))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === message);
}

describe(`a bridge tracker killed mid-way (${source.kind})`, MANY_PROCESSES, () => {
  it('is resumed by the next process, which ends the transfer executed once, the link paid exactly', async () => {
    world = await startBridgeWorld();
    const { base, arbitrum, fake, relayer } = world;
    const rpc = {
      base: await serveJsonRpc(base.chain.provider),
      arbitrum: await serveJsonRpc(arbitrum.chain.provider),
    };
    cleanup.push(rpc.base.close, rpc.arbitrum.close);
    const env = processEnv(
      {
        ...world.env,
        ...(await suiteDatabase(cleanup)),
        RPC_URL_BASE: rpc.base.url,
        RPC_URL_ARBITRUM_ONE: rpc.arbitrum.url,
        CONFIRMATIONS_BASE: '0',
        CONFIRMATIONS_ARBITRUM_ONE: '0',
        INDEXER_POLL_MS: '100',
        BRIDGE_TRACKER_POLL_MS: '100',
      },
      { migrated: true },
    );
    const account = await createAccountByCli(env, 'Bridged payee');
    const payee = getAddress(keccak256(toHex('restarted bridge tracker payee')).slice(0, 42));
    const destinationId = await createDestinationByCli(env, {
      accountId: account.accountId,
      address: payee,
      currency: 'USDC-base',
    });

    server = await startServer(env);
    const first = server;
    const api = fetchApi(() => (server as ServerProcess).url, account.apiKey);
    const { token, requestIds } = await createLink(api, destinationId, '25');
    // The bridge waits: the deposit stays pending on Arbitrum.
    relayer.pause();
    const { payer, deposit, intentId } = await payFromArbitrum(world, api, token, 2);
    // The first process's tracker asks the aggregator about it (not found yet), a few times.
    const statusAsked = () =>
      fake.received.filter((r) => r.path === '/v1/status' && r.query.txHash === deposit).length;
    expect(await until(statusAsked, (count) => count >= 3)).toBeGreaterThanOrEqual(3);
    expect((await api(`/v2/secure-payments/${token}`)).status).toBe(200);
    expect(await first.stop('SIGKILL')).toBe(null);
    expect(logged(first.output(), 'bridge transfer tracking ended')).toEqual([]);

    // The relayer fills the deposit on Base while no payreq process runs.
    relayer.resume();
    const filled = await until(
      () => relayer.deposits().find((d) => d.depositTxHash === deposit),
      (found) => found?.status === 'filled',
    );
    if (!filled?.fillTxHash) throw new Error('the relayer did not fill the deposit');
    const usdc = getAddress(base.chain.addresses.usdc);
    expect(await balanceOf(base, usdc, payee)).toBe(25_000_000n);

    server = await startServer(env);
    const restarted = server;
    const settled = await until(
      () => logged(restarted.output(), 'bridge transfer settled'),
      (lines) => lines.length > 0,
    );
    expect(settled).toEqual([expect.objectContaining({ intentId })]);
    expect(logged(restarted.output(), 'bridge transfer tracking ended')).toEqual([
      expect.objectContaining({ intentId, outcome: 'delivered', network: 'arbitrum-one' }),
    ]);
    // A few more of its rounds (every 100 ms) end nothing again.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(logged(restarted.output(), 'bridge transfer settled')).toHaveLength(1);

    const status = JSON.parse((await api(`/v2/request/${requestIds[0]}`)).text);
    expect(status).toMatchObject({
      hasBeenPaid: true,
      txHash: filled.fillTxHash,
      payerAddress: payer.address,
    });
    expect((await api(`/v2/secure-payments/${token}`)).status).toBe(409);
    expect(await balanceOf(base, usdc, payee)).toBe(25_000_000n);
    await restarted.stop();
    server = undefined;
  });
});
