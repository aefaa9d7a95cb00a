import type { AddressInfo } from 'node:net';
import { activateDestination } from '../../../src/destinations/destinations.ts';
import { resolveTarget } from '../../../src/destinations/target.ts';
import type { Dispatcher } from '../../../src/webhooks/dispatcher.ts';
import { createRealClock, createTestApp, type TestApp } from '../../../test/app.ts';
import { standIn } from '../../../test/chain.ts';
import { dispatcherFor } from '../../../test/dispatcher.ts';
import { createTenant } from '../../../test/fixtures.ts';

/**
 * A real payreq for the client's tests: the application listening on a loopback port, on the
 * suite's database (PGlite or Postgres), with Base stood in by a local chain carrying the
 * Request contracts (so `/pay` reads real allowances), webhooks to loopback allowed and the
 * dispatcher running, and an account with an API key and one active destination (USDC on
 * Base, paid to the chain's second wallet). Real time: deliveries are signed with it and the
 * verifier checks their age against it.
 */
export interface ClientRig {
  readonly t: TestApp;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly destinationId: string;
  readonly payee: string;
  close(): Promise<void>;
}

export async function startRig(): Promise<ClientRig> {
  const base = await standIn('base');
  const t: TestApp = await createTestApp({
    env: { ...base.env, ALLOW_LOCAL_WEBHOOKS: 'true', PAY_URL: 'https://pay.payreq.test' },
    transports: base.transports,
    clock: createRealClock(),
  });
  let dispatcher: Dispatcher | undefined;
  try {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const tenant = await createTenant(t.db);
    const payee = base.chain.wallets[1]?.address;
    if (payee === undefined) throw new Error('the local chain has no second wallet');
    const destination = await activateDestination(
      t.db,
      t.clock,
      tenant.accountId,
      resolveTarget(t.chains, {
        walletAddress: payee,
        chainId: 8453,
        tokenAddress: base.chain.addresses.usdc,
      }),
    );
    const running = dispatcherFor(t);
    running.start(50);
    dispatcher = running;
    return {
      t,
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: tenant.apiKey,
      destinationId: destination.destinationId,
      payee,
      close: async () => {
        await running.stop();
        await t.close();
        await base.chain.close();
      },
    };
  } catch (error) {
    await dispatcher?.stop();
    await t.close();
    await base.chain.close();
    throw error;
  }
}
