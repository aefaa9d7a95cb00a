import type { Browser } from 'playwright-core';
import { encodeFunctionData, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxAddresses, sandboxWallets } from '../../src/sandbox/addresses.ts';
import { launchChromium } from '../browser.ts';
import { installTestWallets } from '../pay-page/wallet.ts';
import { freePort, processEnv, type ServerProcess, startServer } from '../process.ts';

/**
 * The README's "Pay from a browser wallet" (its steps in docs/guides/browser-wallet.md), as a
 * new user does it: `npm start` logs a demo link; a browser wallet holding test wallet #2's
 * key, on another network and not knowing the sandbox, opens it; the page has the wallet add
 * the sandbox network (its RPC URL on our listener) and switch to it, then the payer approves
 * and pays, the wallet sending to that RPC URL; the server's own indexer confirms the payment
 * and the page shows it paid.
 */

const balanceOf = parseAbi(['function balanceOf(address) view returns (uint256)']);

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

async function usdcBalance(rpc: string, owner: string): Promise<bigint> {
  const response = await fetch(rpc, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [
        {
          to: sandboxAddresses().usdc,
          data: encodeFunctionData({ abi: balanceOf, args: [owner as `0x${string}`] }),
        },
        'latest',
      ],
    }),
  });
  return BigInt(((await response.json()) as { result: string }).result);
}

describe('paying the sandbox demo link from a browser wallet', () => {
  it('adds the sandbox network to the wallet, pays, and shows the payment confirmed', async () => {
    const port = await freePort();
    const env = processEnv({ PORT: String(port), INDEXER_POLL_MS: '100' });
    delete env.SANDBOX; // unset, as for a user: on by default
    server = await startServer(env, { npmStart: true, timeoutMs: 90_000 });
    const origin = `http://localhost:${port}`;
    const [, link] = await waitForOutput(/try the pay page: (\S+) asks 10 USDC-sandbox/);
    expect(link).toMatch(new RegExp(`^${origin}/\\?token=[0-9A-Z]{26}$`));

    const [payee, payer] = [sandboxWallets()[1], sandboxWallets()[2]];
    if (!payee || !payer) throw new Error('no sandbox wallets');
    const rpc = `${origin}/sandbox/rpc`;
    const before = await usdcBalance(rpc, payee.address);

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
    expect(await page.locator('h1').textContent()).toBe('Pay 10 USDC');
    expect(await page.locator('[data-field="network"]').textContent()).toBe(
      'Sandbox (local chain)',
    );
    await page.getByRole('button', { name: 'Pay with Browser Wallet' }).click();
    await page.locator('[data-screen="completed"]').waitFor({ timeout: 60_000 });

    const added = wallet?.calls.find((c) => c.method === 'wallet_addEthereumChain');
    expect(added?.params).toEqual([expect.objectContaining({ chainId: '0x7a69', rpcUrls: [rpc] })]);
    expect(wallet?.sent).toHaveLength(2);
    expect((await usdcBalance(rpc, payee.address)) - before).toBe(10_000_000n);
    await context.close();
  }, 150_000);
});
