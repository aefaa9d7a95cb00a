import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Address, custom, getAddress, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { safeAbi } from '../../src/payments/safe/abi.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import { sandboxPaySafe } from '../../src/sandbox/pay-safe.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { processEnv, ROOT, runCli } from '../process.ts';

/**
 * `payreq sandbox create-safe` and `payreq sandbox pay --safe`, run as the CLI processes they
 * are, against a server's sandbox chain over HTTP: a 2-of-3 Safe of test wallets is made and
 * funded, and two of its owners pay a link from it, the payee receiving exactly the amount.
 * The README's Safe walk-through runs as written, each output matching the one it shows.
 */

const TOKEN_ABI = parseAbi(['function balanceOf(address) view returns (uint256)']);

let chain: LocalChain;
let t: TestApp;
let tenant: Tenant;
let baseUrl: string;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 31337 });
  t = await createTestApp({
    env: { SANDBOX: 'true' },
    transports: { sandbox: custom(chain.provider, { retryCount: 0 }) },
    sandbox: { provider: chain.provider },
  });
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  tenant = await createTenant(t.db);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await chain?.close();
});

const usdc = () => getAddress(chain.addresses.usdc);
const usdcOf = (owner: Address) =>
  chain.client.readContract({
    address: usdc(),
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  });

async function createSafe(args: string[]) {
  const result = await runCli(
    ['sandbox', 'create-safe', ...args, '--url', baseUrl, '--json'],
    processEnv(),
  );
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { safe: Address; owners: Address[]; threshold: number };
}

async function link(amount: string): Promise<string> {
  const payee = accountOf(chain, 1).address;
  const target = resolveTarget(t.chains, {
    walletAddress: payee,
    chainId: 31337,
    tokenAddress: usdc(),
  });
  const destination = await activateDestination(t.db, t.clock, tenant.accountId, target);
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { requests: [{ destinationId: destination.destinationId, amount }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().token;
}

/** The README's Safe block: each command (continuations joined) and the output shown. */
function guideSteps(): { command: string; shows: string | null }[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Pay from a 2-of-3 Safe'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const steps: { command: string; shows: string | null }[] = [];
  let pending = '';
  for (const line of block.split('\n')) {
    const shown = /^#\s{2,}(\{.*)$/.exec(line)?.[1];
    const last = steps.at(-1);
    if (shown && last) last.shows = shown;
    else if (line.trim() !== '' && !line.startsWith('#')) {
      pending += `${line.replace(/\\$/, '')} `;
      if (!line.endsWith('\\')) {
        steps.push({ command: pending.trim(), shows: null });
        pending = '';
      }
    }
  }
  return steps;
}

/** Words split at spaces, a double-quoted string being one word (the guide uses no other). */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
}

/** The shown output as a pattern: `<name>` is a known value or captures one, `…` anything. */
function matchShown(shown: string, printed: string, known: Map<string, string>): void {
  const names: string[] = [];
  const pattern = shown
    .split(/(<[a-z]+>|…)/)
    .map((part) => {
      if (part === '…') return '.*?';
      const value = known.get(part);
      const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      if (value !== undefined) return escaped(value);
      if (!/^<[a-z]+>$/.test(part)) return escaped(part);
      names.push(part);
      return '([^"]*)';
    })
    .join('');
  const match = new RegExp(`^${pattern}$`).exec(printed.trim());
  expect(match, `the guide shows ${shown}\nbut it printed ${printed}`).not.toBeNull();
  for (const [i, name] of names.entries()) known.set(name, match?.[i + 1] ?? '');
}

describe('the README’s Safe walk-through on the sandbox', () => {
  it('runs as written: a 2-of-3 Safe made, funded and paying a link', async () => {
    const token = await link('25');
    const payee = accountOf(chain, 1).address;
    const before = await usdcOf(payee);
    const known = new Map([
      ['<token>', token],
      ['<key>', tenant.apiKey],
    ]);
    const steps = guideSteps();
    expect(steps.map((step) => words(step.command).slice(0, 3).join(' '))).toEqual([
      'npx payreq sandbox',
      'curl -s http://localhost:8080/v2/secure-payments/<token>/pay?isSafe=true&wallet=<safe>',
      'npx payreq sandbox',
    ]);
    for (const step of steps) {
      const argv = words(step.command).map((word) =>
        word
          .replace('http://localhost:8080', baseUrl)
          .replace(/<[a-z]+>/g, (name) => known.get(name) ?? name),
      );
      let printed: string;
      if (argv[0] === 'curl') {
        const [, , url = '', , header = ''] = argv;
        const [name = '', value = ''] = header.split(': ');
        const res = await fetch(url, { headers: { [name]: value } });
        expect(res.status).toBe(200);
        printed = await res.text();
      } else {
        const result = await runCli(argv.slice(2), processEnv({ BASE_URL: baseUrl }));
        expect(result.code, result.stderr).toBe(0);
        printed = result.stdout;
      }
      if (step.shows) matchShown(step.shows, printed, known);
    }
    const safe = getAddress(known.get('<safe>') ?? '');
    expect((await usdcOf(payee)) - before).toBe(25_000_000n);
    expect(await usdcOf(safe)).toBe(75_000_000n);
  });
});

describe('payreq sandbox create-safe and pay --safe', () => {
  it('makes a funded 2-of-3 Safe that two owners pay a link from', async () => {
    const created = await createSafe(['--owners', '2,3,4', '--threshold', '2', '--fund', '100']);
    const owners = [2, 3, 4].map((i) => accountOf(chain, i).address);
    expect(created).toMatchObject({ owners, threshold: 2 });
    expect(
      await chain.client.readContract({
        address: created.safe,
        abi: safeAbi,
        functionName: 'getOwners',
      }),
    ).toEqual(owners);
    expect(await usdcOf(created.safe)).toBe(100_000_000n);

    const token = await link('25');
    const payee = accountOf(chain, 1).address;
    const before = await usdcOf(payee);
    const paid = await runCli(
      [
        'sandbox',
        'pay',
        token,
        '--safe',
        created.safe,
        '--wallet',
        '4,2',
        '--api-key',
        tenant.apiKey,
        '--url',
        baseUrl,
        '--json',
      ],
      processEnv(),
    );
    expect(paid.code, paid.stderr).toBe(0);
    expect(JSON.parse(paid.stdout)).toMatchObject({
      safe: created.safe,
      signers: [owners[2], owners[0]],
      executor: owners[2],
      transactions: [expect.stringMatching(/^0x[0-9a-f]{64}$/)],
    });
    expect((await usdcOf(payee)) - before).toBe(25_000_000n);
    expect(await usdcOf(created.safe)).toBe(75_000_000n);
  });

  it('says which wallet is no owner, and how many signatures the Safe needs', async () => {
    const { safe } = await createSafe(['--owners', '2,3', '--threshold', '2']);
    const token = await link('1');
    const pay = (wallets: number[]) =>
      sandboxPaySafe({ baseUrl, token, safe, wallets, apiKey: tenant.apiKey });
    await expect(pay([2, 1])).rejects.toThrow(
      `test wallet 1 (${accountOf(chain, 1).address}) is not an owner of the Safe ${safe}`,
    );
    await expect(pay([3])).rejects.toThrow(
      'the Safe needs 2 signatures: give --wallet 2 of its owners',
    );
  });

  it('says so before signing when the Safe holds too little', async () => {
    const { safe } = await createSafe(['--owners', '2', '--threshold', '1']);
    const token = await link('6');
    await expect(
      sandboxPaySafe({ baseUrl, token, safe, wallets: [2], apiKey: tenant.apiKey }),
    ).rejects.toThrow(
      `the Safe ${safe} holds 0 and the link needs 6: fund it first (create-safe --fund, or send it tokens)`,
    );
  });

  it('records a Safe transaction on the sandbox (`chain: SANDBOX`): the link waits, its owners finish it', async () => {
    const { safe } = await createSafe(['--owners', '2,3', '--threshold', '2', '--fund', '5']);
    const token = await link('2');
    const headers = { 'x-api-key': tenant.apiKey };
    const pay = await t.app.inject({
      url: `/v2/secure-payments/${token}/pay?isSafe=true&wallet=${safe}`,
      headers,
    });
    expect(pay.statusCode, pay.body).toBe(200);
    const { safeTxHash } = pay.json().safeTransaction;
    const intent = await t.app.inject({
      method: 'POST',
      url: `/v2/secure-payments/${token}/intent`,
      headers,
      payload: { chain: 'SANDBOX', token: 'USDC', safeTxHash, payerAddress: safe },
    });
    expect(intent.statusCode, intent.body).toBe(200);
    expect(intent.json()).toMatchObject({ safeTxHash, isListening: true, payerAddress: safe });
    const display = await t.app.inject({ url: `/v2/secure-payments/${token}`, headers });
    expect(display.statusCode).toBe(423);
    expect(display.json().requestStatuses[0]).toMatchObject({ safeTxHash, chainId: 31337 });

    // The owners finish the recorded transaction: `pay --safe` takes it from the 423.
    const payee = accountOf(chain, 1).address;
    const before = await usdcOf(payee);
    const paid = await sandboxPaySafe({
      baseUrl,
      token,
      safe,
      wallets: [3, 2],
      apiKey: tenant.apiKey,
    });
    expect(paid.safeTxHash).toBe(safeTxHash);
    expect((await usdcOf(payee)) - before).toBe(2_000_000n);
  });

  it('refuses a threshold above the owners before sending anything', async () => {
    const result = await runCli(
      ['sandbox', 'create-safe', '--owners', '2', '--threshold', '2', '--url', baseUrl],
      processEnv(),
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'payreq: the threshold must be from 1 to 1 (the number of owners)',
    );
  });
});
