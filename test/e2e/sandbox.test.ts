import { afterAll, describe, expect, it } from 'vitest';
import { sandboxAddresses, sandboxWallets } from '../../src/sandbox/addresses.ts';
import { processEnv, runCli, type ServerProcess, startServer } from '../process.ts';

/**
 * The README's walk-through, as a new user runs it: CLI account and destination, `payreq
 * serve` with its sandbox chain, a link over HTTP, `payreq sandbox pay` with a test wallet,
 * and the payee's balance read back through the sandbox's JSON-RPC.
 */

let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
});

async function rpc(url: string, method: string, params: unknown[]) {
  const res = await fetch(`${url}/sandbox/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: string; error?: { message: string } };
}

async function usdcBalance(url: string, owner: string): Promise<bigint> {
  const data = `0x70a08231${owner.slice(2).toLowerCase().padStart(64, '0')}`;
  const answer = await rpc(url, 'eth_call', [{ to: sandboxAddresses().usdc, data }, 'latest']);
  return BigInt(answer.result ?? '0x0');
}

describe('the sandbox walk-through', () => {
  it('pays a link on the sandbox chain with a test wallet, from the CLI', async () => {
    const env = processEnv({ SANDBOX: 'true', INDEXER_POLL_MS: '100' });
    const payee = sandboxWallets()[1]?.address ?? '';
    const account = JSON.parse(
      (await runCli(['account', 'create', '--name', 'Demo shop', '--json'], env)).stdout,
    );
    const destination = await runCli(
      [
        'destination',
        'create',
        '--account',
        account.accountId,
        '--address',
        payee,
        '--currency',
        'USDC-sandbox',
        '--json',
      ],
      env,
    );
    expect(destination.code, destination.stderr).toBe(0);
    const { destinationId } = JSON.parse(destination.stdout);
    expect(destinationId).toMatch(/@eip155:31337#[0-9A-F]{8}:/);

    server = await startServer(env);
    expect(server.output()).toContain('sandbox chain ready');
    expect(server.output()).toContain(sandboxWallets()[2]?.privateKey);
    const url = server.url;
    const created = await fetch(`${url}/v2/secure-payments`, {
      method: 'POST',
      headers: { 'x-api-key': account.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ requests: [{ destinationId, amount: '25' }] }),
    });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    const before = await usdcBalance(url, payee);

    const paid = await runCli(
      [
        'sandbox',
        'pay',
        token,
        '--wallet',
        '2',
        '--api-key',
        account.apiKey,
        '--url',
        url,
        '--json',
      ],
      env,
    );
    expect(paid.code, paid.stderr).toBe(0);
    expect(JSON.parse(paid.stdout).transactions).toHaveLength(2);
    expect((await usdcBalance(url, payee)) - before).toBe(25_000_000n);

    // The sandbox's indexer sees it: the link is completed.
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (status !== 409 && Date.now() < deadline) {
      status = (
        await fetch(`${url}/v2/secure-payments/${token}`, {
          headers: { 'x-api-key': account.apiKey },
        })
      ).status;
      if (status !== 409) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(409);

    const currencies = await fetch(`${url}/v2/currencies?network=sandbox`, {
      headers: { 'x-api-key': account.apiKey },
    });
    expect(((await currencies.json()) as { id: string }[]).map((c) => c.id)).toContain(
      'USDC-sandbox',
    );
    const unknownMethod = await rpc(url, 'eth_nope', []);
    expect(unknownMethod.error?.message).toBeTruthy();
  });
});
