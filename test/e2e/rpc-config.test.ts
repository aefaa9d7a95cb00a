import { afterAll, describe, expect, it } from 'vitest';
import { serveJsonRpc } from '../../src/sandbox/rpc-server.ts';
import { accountOf, type StandIn, standIn } from '../chain.ts';
import { createAccountByCli } from '../faults.ts';
import {
  createDestinationByCli,
  MANY_PROCESSES,
  processEnv,
  type ServerProcess,
  startServer,
} from '../process.ts';

/**
 * Config alone points a network at another chain: a separate payreq process, given
 * RPC_URL_BASE (a local chain served on loopback) and TOKENS_BASE / CONTRACTS_BASE, reads the
 * payer's balances there through Multicall3.
 */

let local: StandIn | undefined;
let rpc: { url: string; close(): Promise<void> } | undefined;
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
  await rpc?.close();
  await local?.chain.close();
});

describe('a network configured by environment', MANY_PROCESSES, () => {
  it('serves calldata with balances read from the configured RPC', async () => {
    local = await standIn('base');
    rpc = await serveJsonRpc(local.chain.provider);
    const env = processEnv({ ...local.env, RPC_URL_BASE: rpc.url }, { migrated: true });
    const payee = accountOf(local.chain, 1).address;
    const payer = accountOf(local.chain, 2).address;
    const account = await createAccountByCli(env, 'Shop');
    const destinationId = await createDestinationByCli(env, {
      accountId: account.accountId,
      address: payee,
      currency: 'USDC-base',
    });
    expect(destinationId.endsWith(`:${local.chain.addresses.usdc}`)).toBe(true);

    server = await startServer(env);
    const headers = { 'x-api-key': account.apiKey, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/v2/secure-payments`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ requests: [{ destinationId, amount: '7' }] }),
    });
    const { token } = (await created.json()) as { token: string };
    const pay = await fetch(`${server.url}/v2/secure-payments/${token}/pay?wallet=${payer}`, {
      headers,
    });
    expect(pay.status).toBe(200);
    const body = (await pay.json()) as {
      metadata: Record<string, unknown>;
      transactions: { chainId: number }[];
    };
    expect(body.metadata).toMatchObject({
      balance: '1000000',
      allowance: '0',
      hasEnoughBalance: true,
      needsApproval: true,
    });
    expect(body.transactions[0]?.chainId).toBe(8453);
  });
});
