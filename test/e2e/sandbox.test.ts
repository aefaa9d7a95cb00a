import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxWallets } from '../../src/sandbox/addresses.ts';
import { freePort, processEnv, ROOT, run, type ServerProcess, startServer } from '../process.ts';
import { curl, matchShown, shownPattern, walkThrough, words } from '../readme-steps.ts';

/**
 * The README's walk-through, read from README.md and run in the order written, as a new user
 * runs it: `npx payreq` for the account and destination, `npm start` with its sandbox chain,
 * the one-line webhook receiver (`node -e`, which the reader leaves running in a terminal of
 * its own: here a background process), each `curl` as the HTTP request it makes,
 * `npx payreq sandbox pay` with a test wallet. Every step must succeed, and every output the
 * README shows (a `#    {…}` line under a command) must match what the step printed, `<name>`
 * standing for a value a later step uses and `…` for anything; under the receiver, one of the
 * lines it prints once the payment is confirmed. So the README cannot promise a step that
 * fails, or drift from what runs.
 */

/** Resolves once something accepts connections on the loopback port. */
async function listening(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let server: ServerProcess | undefined;
let receiver: ChildProcess | undefined;
afterAll(async () => {
  receiver?.kill();
  await server?.stop();
});

describe('the README walk-through', () => {
  it('runs in the order written, each step doing what the README shows', async () => {
    const port = await freePort();
    const hookPort = await freePort();
    // The README's ports are 8080 (the server) and 9000 (the webhook receiver); ours are any
    // free ones, and everything else is as written.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
      .replaceAll('http://localhost:8080', `http://localhost:${port}`)
      .replaceAll('http://127.0.0.1:9000', `http://127.0.0.1:${hookPort}`)
      .replaceAll('.listen(9000,', `.listen(${hookPort},`);
    const steps = walkThrough(readme);
    expect(steps.map((step) => step.command).join('\n')).not.toMatch(/\b9000\b/);
    const kinds = steps.map((step) => {
      const argv = words(step.command);
      if (argv[0] === 'curl') return 'curl';
      return argv[0] === 'node' ? argv.slice(0, 2).join(' ') : argv.slice(0, 3).join(' ');
    });
    expect(kinds).toEqual([
      'npm install',
      'npx payreq account',
      'npx payreq destination',
      'npm start',
      'node -e',
      'curl',
      'curl',
      'curl',
      'npx payreq sandbox',
      'curl',
    ]);

    const env = processEnv({ PORT: String(port), INDEXER_POLL_MS: '100' });
    delete env.SANDBOX; // unset, as for a user: on by default
    const known = new Map<string, string>();
    let received = '';
    let receiverShows: string | null = null;
    const fill = (command: string) =>
      command.replace(/<[A-Za-z]+>/g, (name) => {
        const value = known.get(name);
        if (value === undefined) throw new Error(`${name} is used before a step printed it`);
        return value;
      });

    for (const step of steps) {
      const argv = words(fill(step.command));
      let printed: string;
      if (argv[0] === 'npm' && argv[1] === 'install') {
        // The checkout this runs in is installed already.
        continue;
      } else if (argv[0] === 'npm' && argv[1] === 'start') {
        server = await startServer(env, { npmStart: true, timeoutMs: 90_000 });
        expect(server.output()).toContain('sandbox chain ready');
        continue;
      } else if (argv[0] === 'node' && argv[1] === '-e') {
        // The receiver runs until stopped, as in the reader's second terminal: what it shows
        // comes once the payment is confirmed, and is checked then.
        receiver = spawn('node', argv.slice(1), { cwd: ROOT, env });
        receiver.stdout?.on('data', (chunk: Buffer) => {
          received += chunk.toString();
        });
        await listening(hookPort);
        receiverShows = step.shows;
        continue;
      } else if (argv[0] === 'npx') {
        const result = await run('npx', argv.slice(1), env);
        expect(result.code, `${step.command}\n${result.stderr}`).toBe(0);
        printed = result.stdout;
      } else if (argv[0] === 'curl') {
        const result = await curl(argv.slice(1));
        expect(result.status, `${step.command}\n${result.body}`).toBeLessThan(300);
        printed = result.body;
      } else {
        throw new Error(`the walk-through runs ${argv[0]}, which this test does not know`);
      }
      if (step.shows !== null) {
        for (const [name, value] of matchShown(step.shows, printed, known)) known.set(name, value);
      }
      // A command's JSON fields are the values later steps name the same way (`<token>`).
      const parsed: unknown = JSON.parse(printed);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        for (const [key, value] of Object.entries(parsed)) {
          if (typeof value === 'string' && !known.has(`<${key}>`)) known.set(`<${key}>`, value);
        }
      }
    }

    // What the README says happens next: the indexer sees the payment, the link completes.
    const headers = { 'x-api-key': known.get('<key>') ?? '' };
    const base = `http://localhost:${port}`;
    const deadline = Date.now() + 20_000;
    let status = 0;
    while (status !== 409 && Date.now() < deadline) {
      status = (await fetch(`${base}/v2/secure-payments/${known.get('<token>')}`, { headers }))
        .status;
      if (status !== 409) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(409);
    const request = await fetch(`${base}/v2/request/${known.get('<requestId>')}`, { headers });
    expect(await request.json()).toMatchObject({ status: 'paid' });

    // The receiver the README registered before the link was made hears of the payment: one
    // of the lines it prints is the delivery the README shows under it.
    expect(receiverShows, 'the README shows nothing under the webhook receiver').not.toBeNull();
    const { pattern } = shownPattern(receiverShows ?? '', known);
    // Delivery runs on the dispatcher's loop in the server process: on a loaded machine it can
    // take tens of seconds after the link reads paid.
    const hookDeadline = Date.now() + 60_000;
    const heard = () => received.split('\n').some((line) => pattern.test(line.trim()));
    while (!heard() && Date.now() < hookDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(heard(), `README shows ${receiverShows}\nbut the receiver printed ${received}`).toBe(
      true,
    );
    expect(received).toContain('"event":"payment.confirmed.checkout"');
    expect(server?.output()).toContain(sandboxWallets()[2]?.privateKey);

    // Beside the walk-through: the sandbox is a listed network, and its RPC answers errors.
    const currencies = await fetch(`${base}/v2/currencies?network=sandbox`, { headers });
    expect(((await currencies.json()) as { id: string }[]).map((c) => c.id)).toContain(
      'USDC-sandbox',
    );
    const unknownMethod = await fetch(`${base}/sandbox/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_nope', params: [] }),
    });
    expect(
      ((await unknownMethod.json()) as { error?: { message: string } }).error?.message,
    ).toBeTruthy();

    // "It runs until you stop it (Ctrl-C)": the terminal signals npm and all it started.
    await server?.stop('SIGINT');
    expect(server?.output()).toContain('"msg":"stopped"');
  }, 180_000);
});
