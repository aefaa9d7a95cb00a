import { afterAll, describe, expect, inject, it } from 'vitest';
import { createAccountByCli, suiteDatabase } from '../faults.ts';
import { MANY_PROCESSES, processEnv, type ServerProcess, startServer } from '../process.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';

/**
 * A delivery written to the outbox survives the process: the server is killed with SIGKILL
 * after the event is queued and before anything is sent, and the restarted process sends it.
 */

const source = inject('testDatabase');
// A process on the embedded database never sees DATABASE_URL (processEnv drops it), so it runs
// the same in the suite's Postgres and PGlite runs: CI, which always has the PGlite run, tests
// it there, and the Postgres run tests Postgres.
const backend = source.kind;
const cleanup: (() => Promise<void>)[] = [];
let receiver: Receiver;
let server: ServerProcess | undefined;

afterAll(async () => {
  await server?.stop('SIGKILL');
  await receiver?.close();
  for (const step of cleanup.reverse()) await step();
});

describe(`a crash between enqueue and send (${backend})`, MANY_PROCESSES, () => {
  it('delivers after the restart', async () => {
    receiver ??= await startReceiver();
    receiver.received.length = 0;
    const env = processEnv(
      { ...(await suiteDatabase(cleanup)), DISPATCHER_POLL_MS: '100' },
      { migrated: true },
    );
    const account = await createAccountByCli(env, 'Crash');
    const headers = { 'x-api-key': account.apiKey, 'content-type': 'application/json' };

    server = await startServer({ ...env, WORKERS: 'false' });
    const registered = await fetch(`${server.url}/v1/webhook`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url }),
    });
    expect(registered.status).toBe(201);
    receiver.verifyWith(((await registered.json()) as { secret: string }).secret);
    const sent = await fetch(`${server.url}/v1/webhook/test`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ eventType: 'payment.confirmed' }),
    });
    const { deliveryIds } = (await sent.json()) as { deliveryIds: string[] };
    expect(deliveryIds).toHaveLength(1);
    expect(await server.stop('SIGKILL')).toBe(null);
    expect(receiver.received).toHaveLength(0);

    server = await startServer(env);
    const [delivery] = await receiver.waitFor(1);
    expect(delivery?.headers['x-service-delivery']).toBe(deliveryIds[0]);
    expect(delivery?.body.event).toBe('payment.confirmed');
    await server.stop();
    server = undefined;
  });
});
