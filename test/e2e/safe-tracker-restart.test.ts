import { type Address, getAddress, keccak256, toHex } from 'viem';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { serveJsonRpc } from '../../src/sandbox/rpc-server.ts';
import { accountOf, type StandIn, standIn } from '../chain.ts';
import { createAccountByCli, suiteDatabase, until } from '../faults.ts';
import {
  createDestinationByCli,
  MANY_PROCESSES,
  processEnv,
  type ServerProcess,
  startServer,
} from '../process.ts';
import { createSafe, executeSafeTransaction, fundSafe, signSafeTransaction } from '../safe.ts';

/**
 * A Safe payment tracked by a payreq process that is killed (SIGKILL: no shutdown, no
 * goodbye) is ended by the next process, from the database alone: the link answers 423 while
 * the first tracks it, the owners execute while no process runs, and the restarted process's
 * tracker lifts the 423 and its detection confirms the payment with the Safe as payer. Both
 * processes read the chain over JSON-RPC on loopback, as from a provider.
 */

const source = inject('testDatabase');
const cleanup: (() => Promise<void>)[] = [];
let local: StandIn | undefined;
let server: ServerProcess | undefined;

afterAll(async () => {
  await server?.stop('SIGKILL');
  for (const step of cleanup.reverse()) await step();
  await local?.chain.close();
});

describe(`a Safe tracker killed mid-way (${source.kind})`, MANY_PROCESSES, () => {
  it('is resumed by the next process, which lifts the 423 and confirms the payment', async () => {
    local = await standIn('base', { walletCount: 6 });
    const chain = local.chain;
    const rpc = await serveJsonRpc(chain.provider);
    cleanup.push(rpc.close);
    const env = processEnv(
      {
        ...local.env,
        ...(await suiteDatabase(cleanup)),
        RPC_URL_BASE: rpc.url,
        CONFIRMATIONS_BASE: '0',
        INDEXER_POLL_MS: '100',
        SAFE_TRACKER_POLL_MS: '100',
      },
      { migrated: true },
    );
    const account = await createAccountByCli(env, 'Safe payee');
    const payee = getAddress(keccak256(toHex('restarted tracker payee')).slice(0, 42));
    const destinationId = await createDestinationByCli(env, {
      accountId: account.accountId,
      address: payee,
      currency: 'USDC-base',
    });

    const owners = [accountOf(chain, 2), accountOf(chain, 3), accountOf(chain, 4)] as const;
    const safe = await createSafe(
      chain,
      owners.map((owner) => owner.address),
      2,
    );
    await fundSafe(chain, accountOf(chain, 5), getAddress(chain.addresses.usdc), safe, 50_000_000n);

    server = await startServer(env);
    const api = (path: string, body?: Record<string, unknown>) =>
      fetch(`${(server as ServerProcess).url}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { 'x-api-key': account.apiKey, 'content-type': 'application/json' },
        ...(body && { body: JSON.stringify(body) }),
      });
    const created = await api('/v2/secure-payments', {
      requests: [{ destinationId, amount: '9.75' }],
    });
    expect(created.status).toBe(201);
    const { token, requestIds } = (await created.json()) as {
      token: string;
      requestIds: string[];
    };
    const pay = await api(`/v2/secure-payments/${token}/pay?isSafe=true&wallet=${safe}`);
    expect(pay.status).toBe(200);
    const { safeTransaction } = (await pay.json()) as {
      safeTransaction: Parameters<typeof signSafeTransaction>[1];
    };
    const intent = await api(`/v2/secure-payments/${token}/intent`, {
      chain: 'BASE',
      token: 'USDC',
      safeTxHash: safeTransaction.safeTxHash,
    });
    expect(intent.status).toBe(200);
    const { intentId } = (await intent.json()) as { intentId: string };
    // A few of the tracker's rounds (every 100 ms) find it pending.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await api(`/v2/secure-payments/${token}`)).status).toBe(423);
    expect(await server.stop('SIGKILL')).toBe(null);

    // The owners execute while no payreq process runs.
    const signatures = [
      await signSafeTransaction(owners[2], safeTransaction, 'typed'),
      await signSafeTransaction(owners[0], safeTransaction, 'eth_sign'),
    ];
    const txHash = await executeSafeTransaction(chain, owners[1], safeTransaction, signatures);

    server = await startServer(env);
    const restarted = server;
    // The new process's tracker ends the intent as executed (its log says so, once).
    const ended = (output: string) =>
      output
        .split('\n')
        .filter((line) => line.includes('Safe transaction tracking ended'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const endings = await until(
      'the restarted tracker ends the intent',
      () => Promise.resolve(ended(restarted.output())),
      (lines) => lines.length > 0,
    );
    expect(endings).toEqual([expect.objectContaining({ intentId, outcome: 'executed' })]);
    const display = await until(
      'the link answers 409',
      () => api(`/v2/secure-payments/${token}`).then((res) => res.status),
      (status) => status === 409,
    );
    expect(display).toBe(409);
    const status = (await (await api(`/v2/request/${requestIds[0]}`)).json()) as Record<
      string,
      unknown
    >;
    expect(status).toMatchObject({ hasBeenPaid: true, txHash, payerAddress: safe as Address });
    await server.stop();
    server = undefined;
  });
});
