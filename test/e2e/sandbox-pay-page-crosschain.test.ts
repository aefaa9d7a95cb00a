import type { Browser } from 'playwright-core';
import { encodeFunctionData, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxAddresses, sandboxWallets } from '../../src/sandbox/addresses.ts';
import { launchChromium } from '../browser.ts';
import { installTestWallets } from '../pay-page/wallet.ts';
import { freePort, processEnv, type ServerProcess, startServer } from '../process.ts';

/**
 * Paying the sandbox's demo link from its other chain, on the page, as a new user would: `npm
 * start` runs both sandbox chains, the fake aggregator and the bridge relayer; a browser wallet
 * holding test wallet #2's key, knowing neither chain, opens the demo link, picks USDT on
 * sandbox-b under "Pay from another chain", and pays: the page has the wallet add sandbox-b
 * (its RPC URL on our listener) and switch to it, approve and deposit; the relayer fills the
 * deposit on sandbox, the server's indexer confirms the payment, and the page shows it paid.
 */

const TOKEN_ABI = parseAbi(['function balanceOf(address) view returns (uint256)']);

let server: ServerProcess | undefined;
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function waitForOutput(pattern: RegExp, timeoutMs = 15_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(server?.output() ?? '');
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`no ${pattern} in:\n${server?.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A test token's balance, read through the server's JSON-RPC of a sandbox chain. */
async function balanceOn(rpc: string, token: string, owner: string): Promise<bigint> {
  const response = await fetch(rpc, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [
        {
          to: token,
          data: encodeFunctionData({
            abi: TOKEN_ABI,
            functionName: 'balanceOf',
            args: [owner as `0x${string}`],
          }),
        },
        'latest',
      ],
    }),
  });
  return BigInt(((await response.json()) as { result: string }).result);
}

describe('paying the sandbox demo link from sandbox-b on the page', () => {
  it('picks USDT on sandbox-b, adds that chain to the wallet, pays through the bridge, shows it paid', async () => {
    const port = await freePort();
    const env = processEnv({
      PORT: String(port),
      INDEXER_POLL_MS: '100',
      BRIDGE_TRACKER_POLL_MS: '200',
    });
    delete env.SANDBOX; // unset, as for a user: on by default
    server = await startServer(env, { npmStart: true, timeoutMs: 90_000 });
    const origin = `http://localhost:${port}`;
    const [, link] = await waitForOutput(/try the pay page: (\S+) asks 10 USDC-sandbox/);

    const [payee, payer] = [sandboxWallets()[1], sandboxWallets()[2]];
    if (!payee || !payer) throw new Error('no sandbox wallets');
    const { usdc, usdt } = sandboxAddresses();
    const rpc = { a: `${origin}/sandbox/rpc`, b: `${origin}/sandbox-b/rpc` };
    const before = {
      payee: await balanceOn(rpc.a, usdc, payee.address),
      payer: await balanceOn(rpc.b, usdt, payer.address),
    };

    browser = await launchChromium();
    const context = await browser.newContext();
    const [wallet] = await installTestWallets(context, null, [
      {
        name: 'Browser Wallet',
        rdns: 'test.browser.wallet',
        account: privateKeyToAccount(payer.privateKey as `0x${string}`),
        startChainId: 1,
        knownChainIds: [1],
      },
    ]);
    const page = await context.newPage();
    await page.goto(link ?? '');
    await page.locator('[data-screen="pending"]').waitFor({ timeout: 30_000 });
    await page.locator('details.crosschain summary').click();
    await page.getByRole('button', { name: 'Choose a source in Browser Wallet' }).click();
    const source = page.locator('[data-source="SANDBOX_B:USDT"]');
    await source.waitFor({ timeout: 30_000 });
    expect((await source.textContent())?.trim()).toBe('Pay with USDT on Sandbox B (local chain)');
    await source.click();
    await page.locator('[data-screen="route"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-field="receives"]').textContent()).toBe(
      '10 USDC on Sandbox (local chain)',
    );
    const sent = (await page.locator('[data-field="source-amount"]').textContent()) ?? '';
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.locator('[data-screen="completed"]').waitFor({ timeout: 90_000 });
    expect(await page.locator('h1').textContent()).toBe('Paid 10 USDC');

    const added = wallet?.calls.find((c) => c.method === 'wallet_addEthereumChain');
    expect(added?.params).toEqual([
      expect.objectContaining({ chainId: '0x7a6a', rpcUrls: [rpc.b] }),
    ]);
    expect(wallet?.sent).toHaveLength(2);
    // The payee got the link's amount on sandbox to the base unit; the payer spent on sandbox-b
    // what the page said it would.
    expect((await balanceOn(rpc.a, usdc, payee.address)) - before.payee).toBe(10_000_000n);
    const [amount = '', fraction = ''] = (sent.split(' ')[0] ?? '').split('.');
    const spent = BigInt(amount + fraction.padEnd(6, '0'));
    expect(before.payer - (await balanceOn(rpc.b, usdt, payer.address))).toBe(spent);
    await context.close();
  }, 180_000);
});
