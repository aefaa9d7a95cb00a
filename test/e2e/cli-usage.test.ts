import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort, processEnv, ROOT, runCli } from '../process.ts';

/**
 * The CLI as an operator meets it first: usage and flag mistakes are answered before any
 * config is read or database opened (so even while a server holds the embedded database),
 * `--help` loads no package at all, and a server that is not there is named.
 */

/** An embedded database held by a live process (this one), as a running server holds it. */
function heldDataDir(): NodeJS.ProcessEnv {
  const env = processEnv();
  writeFileSync(join(env.DATA_DIR ?? '', 'pgdata.lock'), String(process.pid));
  return env;
}

/** Records every module the CLI process resolves, in load order, into a file. */
const TRACE_HOOK = `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    appendFileSync(process.env.PAYREQ_MODULE_TRACE, result.url + '\\n');
    return result;
  },
});`)}`;

async function traced(args: readonly string[], env: NodeJS.ProcessEnv) {
  const trace = join(mkdtempSync(join(tmpdir(), 'payreq-trace-')), 'modules.txt');
  writeFileSync(trace, '');
  const result = await runCli(
    args,
    { ...env, PAYREQ_MODULE_TRACE: trace },
    {
      nodeArgs: ['--import', TRACE_HOOK],
    },
  );
  const files = readFileSync(trace, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => relative(ROOT, fileURLToPath(url)));
  return { ...result, files: [...new Set(files)] };
}

describe('payreq usage, with the embedded database held by another process', () => {
  it('prints the usage for --help, -h and no command, on stdout', async () => {
    const env = heldDataDir();
    for (const args of [['--help'], ['-h'], [], ['account', 'create', '--help']]) {
      const result = await runCli(args, env);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/^Usage: payreq <command> \[options\]\n/);
      expect(result.stdout).toContain('client-id create --account <id>');
    }
  });

  it('answers an unknown command with the usage on stderr and exit code 1', async () => {
    const result = await runCli(['acount', 'create', '--name', 'Shop'], heldDataDir());
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^payreq: unknown command "acount create"\n\nUsage: payreq /);
  });

  it.each([
    [['account', 'create'], 'payreq: --name is required'],
    [['account', 'create', '--name', '  '], 'payreq: --name is required'],
    [['account', 'create', '--name'], 'payreq: --name needs a value'],
    [['account', 'create', '--name', '--json'], 'payreq: --name needs a value'],
    [['account', 'create', '--name', 'a', '--name', 'b'], 'payreq: --name is given more than once'],
    [
      ['account', 'create', '--nmae', 'Shop'],
      'payreq: unknown option --nmae for "account create" (see payreq --help)',
    ],
    [
      ['api-key', 'create', '--account', 'x', '--bind', 'y'],
      'payreq: unknown option --bind for "api-key create" (see payreq --help)',
    ],
    [['migrate', '--json=yes'], 'payreq: --json takes no value'],
    [['migrate', 'now'], 'payreq: unexpected argument "now" for "migrate"'],
    [
      ['api-key', 'revoke', '--key', 'k', 'again'],
      'payreq: unexpected argument "again" for "api-key revoke"',
    ],
    [
      ['destination', 'create', '--account', 'a', '--address', 'w'],
      'payreq: --chain-id and --token, or --currency, are required',
    ],
    [
      [
        'destination',
        'create',
        '--account',
        'a',
        '--address',
        'w',
        '--currency',
        'USDC-base',
        '--token',
        't',
      ],
      'payreq: give either --currency, or --chain-id with --token, not both',
    ],
    [
      [
        'destination',
        'create',
        '--account',
        'a',
        '--address',
        'w',
        '--chain-id',
        'base',
        '--token',
        't',
      ],
      'payreq: --chain-id must be a positive integer (got "base")',
    ],
    [['sandbox', 'pay', '--wallet', '1', '--api-key', 'k'], 'payreq: <token> is required'],
    [
      ['sandbox', 'pay', 'tok', '--wallet', 'two', '--api-key', 'k'],
      'payreq: --wallet must be a test wallet number (got "two")',
    ],
    [
      ['sandbox', 'pay', 'tok', '--wallet', '2', '--api-key', 'k', '--chain', 'SANDBOX_B'],
      'payreq: --chain and --token go together (the chain and token to pay from)',
    ],
    [
      ['sandbox', 'pay', 'tok', '--wallet', '2', '--api-key', 'k', '--chain', 'sandbox-b'],
      'payreq: --chain and --token go together (the chain and token to pay from)',
    ],
    [
      [
        ...['sandbox', 'pay', 'tok', '--wallet', '2', '--api-key', 'k'],
        ...['--chain', 'sandbox-b', '--token', 'USDT'],
      ],
      'payreq: --chain must be a chain name such as SANDBOX_B, in upper case (got "sandbox-b")',
    ],
    [
      [
        ...['sandbox', 'pay', 'tok', '--wallet', '2', '--api-key', 'k'],
        ...['--chain', 'SANDBOX_B', '--token', 'usdt'],
      ],
      'payreq: --token must be a token name such as USDT, in upper case (got "usdt")',
    ],
    [
      [
        ...['sandbox', 'pay', 'tok', '--safe', `0x${'1'.repeat(40)}`, '--wallet', '2,3'],
        ...['--api-key', 'k', '--chain', 'SANDBOX_B', '--token', 'USDT'],
      ],
      'payreq: --chain and --token pay from a test wallet, not with --safe',
    ],
    [['serve', '--json'], 'payreq: unknown option --json for "serve" (see payreq --help)'],
    [['orchestrator', 'rotate-key'], 'payreq: --id is required'],
    [
      ['orchestrator', 'list', '--name', 'x'],
      'payreq: unknown option --name for "orchestrator list" (see payreq --help)',
    ],
    [
      ['fee-config', 'create', '--orchestrator', 'o', '--flow', 'incoming', '--bearer', 'payer'],
      'payreq: --bps is required',
    ],
    [
      [
        ...['fee-config', 'create', '--orchestrator', 'o', '--flow', 'incoming'],
        ...['--bearer', 'payer', '--bps', '5'],
      ],
      'payreq: --evm-recipient or --tron-recipient is required (or both)',
    ],
    [['fee-config', 'list'], 'payreq: --orchestrator is required'],
  ])('refuses %j before opening the database', async (args, message) => {
    const result = await runCli(args, heldDataDir());
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe(message);
  });

  it('reaches the database only for a well-formed command (which the held database then refuses)', async () => {
    const result = await runCli(['account', 'create', '--name', 'Shop'], heldDataDir());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`is in use by process ${process.pid}`);
  });
});

describe('what the CLI loads', () => {
  it('answers --help and usage errors without loading any package', async () => {
    for (const args of [['--help'], ['nope'], ['account', 'create']]) {
      const result = await traced(args, heldDataDir());
      expect(result.files.filter((file) => file.includes('node_modules'))).toEqual([]);
      expect([...result.files].sort()).toEqual([
        'src/cli.ts',
        'src/cli/flag-checks.ts',
        'src/cli/flags.ts',
        'src/cli/invocation.ts',
        'src/cli/resolve-hook.ts',
        'src/cli/usage.ts',
      ]);
    }
  });

  it('answers a configuration mistake without loading the app', async () => {
    const result = await traced(['serve'], { ...heldDataDir(), PORT: 'abc' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'payreq: invalid configuration: PORT must be an integer from 0 to 65535 (got "abc")',
    );
    expect(result.files.filter((file) => file.includes('node_modules'))).toEqual([]);
  });

  it('loads the database packages once a command is well formed (the trace sees them)', async () => {
    const result = await traced(
      ['account', 'create', '--name', 'Shop'],
      processEnv({}, { migrated: true }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.files.some((file) => file.includes('node_modules/drizzle-orm/'))).toBe(true);
    expect(result.files.some((file) => file.includes('node_modules/@electric-sql/pglite/'))).toBe(
      true,
    );
    // One engine's driver (the embedded database's), and nothing an account does not need.
    for (const unused of ['pg', 'viem', 'fastify', '@nomicfoundation/edr']) {
      expect(result.files.filter((file) => file.includes(`node_modules/${unused}/`))).toEqual([]);
    }
  });

  it('loads viem for a command that checks addresses (the trace sees it)', async () => {
    const result = await traced(
      ['destination', 'create', '--account', 'nope', '--address', '0x1', '--currency', 'USDC-base'],
      processEnv({}, { migrated: true }),
    );
    expect(result.stderr.trim()).toBe('payreq: no account nope');
    expect(result.files.some((file) => file.includes('node_modules/viem/'))).toBe(true);
  });
});

describe('payreq sandbox pay, when the server is not there', () => {
  const wallet2 = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

  it('names the URL it could not reach and why', async () => {
    const port = await freePort();
    const result = await runCli(
      [
        'sandbox',
        'pay',
        'tok',
        '--wallet',
        '2',
        '--api-key',
        'k',
        '--url',
        `http://127.0.0.1:${port}`,
      ],
      processEnv(),
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `payreq: could not reach http://127.0.0.1:${port}/v2/secure-payments/tok/pay?wallet=${wallet2}: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });

  it('tries BASE_URL when no --url is given, and names it', async () => {
    const port = await freePort();
    const result = await runCli(
      ['sandbox', 'pay', 'tok', '--wallet', '2', '--api-key', 'k'],
      processEnv({ BASE_URL: `http://127.0.0.1:${port}/` }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `could not reach http://127.0.0.1:${port}/v2/secure-payments/tok/pay?wallet=${wallet2}: connect ECONNREFUSED`,
    );
  });

  it('names the sandbox JSON-RPC when the calldata came but the RPC is not there', async () => {
    // A server that hands out one transaction, then closes its port before the payer sends it.
    const server = createServer((request, response) => {
      server.close();
      if (!request.url?.startsWith('/v2/secure-payments/tok/pay')) {
        response.writeHead(404).end();
        return;
      }
      const to = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0';
      response.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
      response.end(
        JSON.stringify({ transactions: [{ to, data: '0x', value: '0', chainId: 31337 }] }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const result = await runCli(
      [
        'sandbox',
        'pay',
        'tok',
        '--wallet',
        '2',
        '--api-key',
        'k',
        '--url',
        `http://127.0.0.1:${port}`,
      ],
      processEnv(),
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `payreq: could not reach the sandbox JSON-RPC at http://127.0.0.1:${port}/sandbox/rpc: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });
});
