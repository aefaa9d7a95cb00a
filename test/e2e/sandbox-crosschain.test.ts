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
 * The README's "Pay from another chain", read from README.md and run as written against
 * `npm start` (no LIFI_URL: the sandbox's second chain, its aggregator and the bridge relayer
 * run in the server): after the main walk-through's steps 1 to 5 (an account paid in
 * USDC-sandbox by test wallet 1, a webhook receiver, a 25 USDC link), the link's
 * `paymentOptions` offer `SANDBOX_B`, `npx payreq sandbox pay --chain SANDBOX_B --token USDT`
 * pays it from sandbox-b through the local bridge, and the two balances shown are the payee's
 * exact 25 USDC on sandbox and the payer's USDT spent on sandbox-b. Then the link is complete,
 * its request paid, `payment.confirmed` names the payer on sandbox-b, and the bridge tracker has
 * followed the recorded deposit to its end; and a link on sandbox-b is paid from sandbox.
 */

let server: ServerProcess | undefined;
let receiver: Receiver | undefined;
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const PAYER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
/** Test wallet 3, paid on sandbox-b from sandbox by test wallet 4. */
const PAYEE_B = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const PAYER_B = 4;
const USDC = '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9';

/** A test token balance read through the server's JSON-RPC of a sandbox chain. */
async function balanceOn(base: string, network: string, owner: string): Promise<bigint> {
  const response = await fetch(`${base}/${network}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ to: USDC, data: `0x70a08231${owner.slice(2).padStart(64, '0')}` }, 'latest'],
    }),
  });
  return BigInt(((await response.json()) as { result: string }).result);
}

describe('the README’s cross-chain walk-through on the sandbox', () => {
  it('runs as written: a sandbox link paid with sandbox-b’s USDT through the local bridge', async () => {
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replaceAll(
      'http://localhost:8080',
      base,
    );
    const steps = walkThrough(readme, '## Pay from another chain');
    expect(steps.map((step) => words(step.command).slice(0, 3).join(' '))).toEqual([
      `curl -s ${base}/v2/secure-payments/<token>?wallet=${PAYER}`,
      'npx payreq sandbox',
      'curl -s -X',
      'curl -s -X',
    ]);

    // Steps 1 to 5 of the main walk-through: the account and destination before the server.
    // The bridge tracker asks the sandbox's aggregator often, so the intent's end comes soon.
    const env = processEnv({
      PORT: String(port),
      INDEXER_POLL_MS: '200',
      BRIDGE_TRACKER_POLL_MS: '200',
    });
    delete env.SANDBOX; // unset, as for a user: on by default
    const account = await runCli(['account', 'create', '--name', 'Demo shop', '--json'], env);
    expect(account.code, account.stderr).toBe(0);
    const { accountId, apiKey } = JSON.parse(account.stdout) as {
      accountId: string;
      apiKey: string;
    };
    const created = await runCli(
      [
        ...['destination', 'create', '--account', accountId, '--address', PAYEE],
        ...['--currency', 'USDC-sandbox', '--json'],
      ],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const { destinationId } = JSON.parse(created.stdout) as { destinationId: string };
    // For the other way round, below: a payee paid in USDC on sandbox-b.
    const onB = await runCli(
      [
        ...['destination', 'create', '--account', accountId, '--address', PAYEE_B],
        ...['--currency', 'USDC-sandbox-b', '--json'],
      ],
      env,
    );
    expect(onB.code, onB.stderr).toBe(0);
    const destinationB = (JSON.parse(onB.stdout) as { destinationId: string }).destinationId;
    expect(destinationB).toContain('@eip155:31338#');
    server = await startServer(env, { npmStart: true, timeoutMs: 120_000 });
    expect(server.output()).toContain('sandbox chain sandbox-b ready');
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    receiver = await startReceiver();
    const hook = await fetch(`${base}/v1/webhook`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url }),
    });
    expect(hook.status, await hook.clone().text()).toBe(201);
    const link = await fetch(`${base}/v2/secure-payments`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ requests: [{ destinationId, amount: '25' }] }),
    });
    expect(link.status).toBe(201);
    const { token, requestIds } = (await link.json()) as { token: string; requestIds: string[] };

    const known = new Map([
      ['<token>', token],
      ['<key>', apiKey],
    ]);
    for (const step of steps) {
      const argv = words(step.command).map((word) =>
        word.replace(/<[a-z]+>/g, (name) => known.get(name) ?? name),
      );
      let printed: string;
      if (argv[0] === 'npx') {
        const result = await run('npx', argv.slice(1), env, { timeoutMs: 150_000 });
        expect(result.code, `${step.command}\n${result.stderr}`).toBe(0);
        printed = result.stdout;
      } else {
        const result = await curl(argv.slice(1));
        expect(result.status, `${step.command}\n${result.body}`).toBeLessThan(300);
        printed = result.body;
      }
      expect(step.shows, `the README shows no output under ${step.command}`).not.toBeNull();
      for (const [name, value] of matchShown(step.shows ?? '', printed, known)) {
        known.set(name, value);
      }
    }
    expect(known.get('<intentId>')).toMatch(/^[0-9a-f-]{36}$/);

    // The link is complete and its request paid on sandbox, by the payer on sandbox-b.
    const completed = await fetch(`${base}/v2/secure-payments/${token}`, { headers });
    expect(completed.status).toBe(409);
    const request = await fetch(`${base}/v2/request/${requestIds[0]}`, { headers });
    expect(await request.json()).toMatchObject({ status: 'paid', hasBeenPaid: true });
    const deadline = Date.now() + 30_000;
    const confirmed = () =>
      receiver?.received.map((r) => r.body).find((b) => b.event === 'payment.confirmed');
    while (!confirmed() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(confirmed()).toMatchObject({
      requestId: requestIds[0],
      amount: '25',
      network: 'sandbox',
      payerAddress: PAYER,
    });

    // The bridge tracker followed the recorded deposit through the sandbox's aggregator to its
    // end: the payment's journey shows the intent executed, with the deposit's hash.
    const journey = await fetch(`${base}/v2/journey`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ requestId: requestIds[0] }),
    });
    expect(journey.status, await journey.clone().text()).toBeLessThan(300);
    const { journeyId } = (await journey.json()) as { journeyId: string };
    const intentHop = async () => {
      const read = await fetch(`${base}/v2/journey/${journeyId}`, { headers });
      const { events } = (await read.json()) as {
        events: { type: string; status: string; rawPayload: Record<string, unknown> }[];
      };
      return events.find((event) => event.type === 'payment_intent');
    };
    const trackerDeadline = Date.now() + 30_000;
    while ((await intentHop())?.status !== 'executed' && Date.now() < trackerDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await intentHop()).toMatchObject({
      status: 'executed',
      rawPayload: { kind: 'bridge', network: 'sandbox-b', payerAddress: PAYER },
    });

    // The payment is cross-chain: it left the payer on sandbox-b in the deposit (a transaction
    // sandbox-b's explorer page knows), and arrived on sandbox in the relayer's fill.
    const depositHash = String((await intentHop())?.rawPayload.txHash);
    expect((await fetch(`${base}/sandbox-b/tx/${depositHash}`)).status).toBe(200);
    const crosschain = {
      type: 'crosschain',
      sourceNetwork: 'sandbox-b',
      destinationNetwork: 'sandbox',
      sourceTxHash: depositHash,
      destinationTxHash: confirmed()?.txHash,
      payerAddress: PAYER,
    };
    const shownPaid = (await (
      await fetch(`${base}/v2/request/${requestIds[0]}`, { headers })
    ).json()) as {
      payments: unknown[];
    };
    expect(shownPaid.payments).toEqual([expect.objectContaining(crosschain)]);
    const search = async (type: string) => {
      const found = await fetch(`${base}/v2/payments?requestId=${requestIds[0]}&type=${type}`, {
        headers,
      });
      return ((await found.json()) as { payments: unknown[] }).payments;
    };
    expect(await search('crosschain')).toEqual([expect.objectContaining(crosschain)]);
    expect(await search('direct')).toEqual([]);

    // The other way round: a link on sandbox-b paid with USDC from sandbox, exactly.
    const before = await balanceOn(base, 'sandbox-b', PAYEE_B);
    const linkB = await fetch(`${base}/v2/secure-payments`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ requests: [{ destinationId: destinationB, amount: '10' }] }),
    });
    expect(linkB.status).toBe(201);
    const tokenB = ((await linkB.json()) as { token: string }).token;
    const paid = await run(
      'npx',
      [
        ...['payreq', 'sandbox', 'pay', tokenB, '--wallet', String(PAYER_B)],
        ...['--chain', 'SANDBOX', '--token', 'USDC', '--api-key', apiKey, '--json'],
      ],
      env,
      { timeoutMs: 150_000 },
    );
    expect(paid.code, paid.stderr).toBe(0);
    const sent = JSON.parse(paid.stdout) as {
      chain: string;
      paid: boolean;
      transactions: string[];
    };
    expect(sent).toMatchObject({ chain: 'SANDBOX', paid: true });
    // The deposit is on sandbox, whose explorer page shows it; sandbox-b's knows nothing of it.
    const deposit = sent.transactions.at(-1) ?? '';
    const shown = await fetch(`${base}/sandbox/tx/${deposit}`);
    expect(await shown.json()).toMatchObject({
      network: 'sandbox',
      hash: deposit,
      status: 'success',
    });
    expect((await fetch(`${base}/sandbox-b/tx/${deposit}`)).status).toBe(404);
    expect((await balanceOn(base, 'sandbox-b', PAYEE_B)) - before).toBe(10_000_000n);
    expect((await fetch(`${base}/v2/secure-payments/${tokenB}`, { headers })).status).toBe(409);
  }, 300_000);
});
