import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  freePort,
  processEnv,
  ROOT,
  run,
  runCli,
  type ServerProcess,
  startServer,
} from '../process.ts';
import { curl, matchShown, walkThrough, words } from '../readme-steps.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';

/**
 * The README's "Hold, capture, refund: commerce payments", read from README.md and run as
 * written against `npm start` (the sandbox's own commerce operator, no COMMERCE_OPERATOR_KEY):
 * after the main walk-through's steps 1 and 2 (an account, the server), test wallet 2 holds 50
 * USDC for test wallet 1 with `npx payreq sandbox authorize`, the server captures 30, refunds
 * 10 and voids the rest; the status and both balances are those shown. Then the commerce
 * webhooks of every step reach the account's receiver, and a second hold expires once the
 * sandbox clock is moved past it.
 */

let server: ServerProcess | undefined;
let receiver: Receiver | undefined;
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

describe('the README’s commerce walk-through on the sandbox', () => {
  it('runs as written: 50 USDC held, 30 captured, 10 refunded, 20 released', async () => {
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replaceAll(
      'http://localhost:8080',
      base,
    );
    const steps = walkThrough(readme, '## Hold, capture, refund');
    expect(steps.map((step) => words(step.command).slice(0, 3).join(' '))).toEqual([
      'curl -s -X',
      'npx payreq sandbox',
      'curl -s -X',
      'curl -s -X',
      'curl -s -X',
      `curl -s ${base}/v2/commerce-payments/<requestId>/status`,
      'curl -s -X',
      'curl -s -X',
    ]);

    const env = processEnv({ PORT: String(port), INDEXER_POLL_MS: '200' });
    delete env.SANDBOX; // unset, as for a user: on by default
    const account = await runCli(['account', 'create', '--name', 'Demo shop', '--json'], env);
    expect(account.code, account.stderr).toBe(0);
    const { apiKey } = JSON.parse(account.stdout) as { apiKey: string };
    server = await startServer(env, { npmStart: true, timeoutMs: 120_000 });
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    receiver = await startReceiver();
    const hook = await fetch(`${base}/v1/webhook`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url }),
    });
    expect(hook.status, await hook.clone().text()).toBe(201);

    const known = new Map([['<key>', apiKey]]);
    for (const step of steps) {
      const argv = words(step.command).map((word) =>
        word.replace(/<[A-Za-z]+>/g, (name) => known.get(name) ?? name),
      );
      let printed: string;
      if (argv[0] === 'npx') {
        const result = await run('npx', argv.slice(1), env, { timeoutMs: 120_000 });
        expect(result.code, `${step.command}\n${result.stderr}`).toBe(0);
        printed = result.stdout;
      } else {
        // The status is read from the escrow's events: the indexer sees the void's block soon.
        const status = step.command.includes('/status');
        const deadline = Date.now() + (status ? 20_000 : 0);
        let result = await curl(argv.slice(1));
        const voided = (body: string) => /,"type":"VOIDED","timestamp"/.test(body);
        while (status && !voided(result.body) && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          result = await curl(argv.slice(1));
        }
        expect(result.status, `${step.command}\n${result.body}`).toBeLessThan(300);
        printed = result.body;
      }
      expect(step.shows, `the README shows no output under ${step.command}`).not.toBeNull();
      for (const [name, value] of matchShown(step.shows ?? '', printed, known)) {
        known.set(name, value);
      }
    }
    const requestId = known.get('<requestId>') ?? '';
    expect(requestId).toMatch(/^01[0-9a-f]{64}$/);

    // Every step's webhook, from the escrow's events, with the running totals.
    const deadline = Date.now() + 30_000;
    const commerce = () =>
      (receiver?.received ?? [])
        .map((delivery) => delivery.body)
        .filter((body) => String(body.event).startsWith('commerce_payment.'));
    while (commerce().length < 4 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Deliveries run side by side, so they may arrive in any order: their blocks order them.
    const byBlock = commerce().sort((a, b) => Number(a.blockNumber) - Number(b.blockNumber));
    expect(byBlock.map((body) => [body.event, body.amount])).toEqual([
      ['commerce_payment.authorized', '50'],
      ['commerce_payment.captured', '30'],
      ['commerce_payment.refunded', '10'],
      ['commerce_payment.voided', '20'],
    ]);
    expect(commerce().every((body) => body.requestId === requestId)).toBe(true);

    // A second hold expires when the sandbox clock passes its authorization expiry.
    const second = await fetch(`${base}/v2/commerce-payments/authorize/calldata`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        merchantId: 'order-1002',
        merchantAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        buyerAddress: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        amount: '5',
        paymentCurrency: 'USDC-sandbox',
        authorizationExpiry: 3_600,
      }),
    });
    expect(second.status, await second.clone().text()).toBe(201);
    const held = (await second.json()) as { requestId: string; payUrl: string };
    const payToken = new URL(held.payUrl).searchParams.get('commerce') ?? '';
    const authorized = await run(
      'npx',
      ['payreq', 'sandbox', 'authorize', payToken, '--wallet', '2', '--api-key', apiKey],
      env,
      { timeoutMs: 120_000 },
    );
    expect(authorized.code, authorized.stderr).toBe(0);
    const moved = await run('npx', ['payreq', 'sandbox', 'clock', 'advance', '2h'], env, {
      timeoutMs: 60_000,
    });
    expect(moved.code, moved.stderr).toBe(0);
    const statusOf = async () =>
      (
        (await (
          await fetch(`${base}/v2/commerce-payments/${held.requestId}/status`, { headers })
        ).json()) as { status: string; canCapture: boolean }
      ).status;
    const expiredBy = Date.now() + 15_000;
    while ((await statusOf()) !== 'EXPIRED' && Date.now() < expiredBy) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await statusOf()).toBe('EXPIRED');
    const late = await fetch(`${base}/v2/commerce-payments/${held.requestId}/capture`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ captureAmount: '5' }),
    });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { code: string }).code).toBe('commerce_authorization_expired');
    // npm start builds and boots a server, and the walk-through runs eight CLI and curl steps:
    // as the other sandbox walk-throughs, it takes longer than the suite's 30 s default.
  }, 180_000);
});
