import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, LogCapture, type TestApp, testConfig } from '../../test/app.ts';
import { type StandIn, standIn } from '../../test/chain.ts';
import { createLogger } from '../base/logger.ts';
import { createChainClients } from '../chains/clients.ts';
import { createChainRegistry } from '../chains/registry.ts';
import { commerceActions, commercePayments } from '../db/schema.ts';
import { sandboxRelayer } from '../sandbox/addresses.ts';
import { sandboxNetwork } from '../sandbox/network.ts';
import { createWorkers } from './workers.ts';

/**
 * Which recurring payout executors a process runs: one per network with a recurring proxy and
 * a transport, signing with RECURRING_RELAYER_KEY (the sandbox with its own relayer); none
 * without a key, said once in the log. And the commerce reconciler runs with them.
 */

let local: StandIn;
let t: TestApp;
beforeAll(async () => {
  local = await standIn('base');
  t = await createTestApp({ env: local.env, transports: local.transports });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await local?.chain.close();
});

function workers(env: Record<string, string>, sandbox = false) {
  const config = testConfig({ ...local.env, ...env });
  const chains = createChainRegistry(config, sandbox ? sandboxNetwork(config.baseUrl) : undefined);
  const transport = local.transports.base;
  if (!transport) throw new Error('no transport');
  const clients = createChainClients({
    config,
    chains,
    transports: { base: transport, ...(sandbox && { sandbox: transport }) },
  });
  const logs = new LogCapture();
  const built = createWorkers({
    config,
    database: t.database,
    chains,
    clients,
    logger: createLogger('info', logs),
    clock: t.clock,
    secretBox: t.secretBox,
    transportNetworks: sandbox ? ['base', 'sandbox'] : ['base'],
  });
  return { built, logs };
}

describe('recurring payout executors', () => {
  it('runs none without a relayer key, and says so once', () => {
    const { built, logs } = workers({});
    expect(built.recurringExecutors).toEqual([]);
    const said = logs.entries().filter((e) => String(e.msg).includes('RECURRING_RELAYER_KEY'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ networks: ['base'] });
  });

  it('runs one per network with the key, and the sandbox’s with the sandbox relayer', () => {
    const key = sandboxRelayer().privateKey;
    const { built, logs } = workers({ RECURRING_RELAYER_KEY: key }, true);
    expect(built.recurringExecutors.map((e) => e.network).sort()).toEqual(['base', 'sandbox']);
    expect(logs.text()).not.toContain('RECURRING_RELAYER_KEY');
    expect(logs.text()).not.toContain(key.slice(2));
    const { built: keyless } = workers({}, true);
    expect(keyless.recurringExecutors.map((e) => e.network)).toEqual(['sandbox']);
    // Nothing checked yet: /readyz has no detail to show.
    expect(keyless.relayerHealth()).toEqual([]);
  });
});

describe('the commerce reconciler', () => {
  it('runs with the workers at COMMERCE_RECONCILE_POLL_MS and ends an action never sent', async () => {
    const [payment] = await t.db
      .insert(commercePayments)
      .values({
        requestId: 'workers-reconciler',
        payToken: 'ab'.repeat(32),
        accountId: '00000000-0000-7000-8000-000000000001',
        merchantId: 'order-1',
        network: 'base',
        chainId: 8453,
        currency: 'USDC-base',
        tokenAddress: local.chain.addresses.usdc,
        wrapper: local.chain.addresses.commerceEscrowWrapper,
        escrow: local.chain.addresses.authCaptureEscrow,
        merchant: local.chain.addresses.usdc,
        operator: local.chain.addresses.usdc,
        tokenCollector: local.chain.addresses.preApprovalPaymentCollector,
        amount: 1n,
        maxAmount: 1n,
        preApprovalExpiry: 1,
        authorizationExpiry: 2,
        refundExpiry: 3,
        paymentReference: '0x0102030405060708',
      })
      .returning({ id: commercePayments.id });
    if (!payment) throw new Error('no payment');
    const [action] = await t.db
      .insert(commerceActions)
      .values({
        commercePaymentId: payment.id,
        kind: 'capture',
        amount: 1n,
        status: 'pending',
        createdAt: t.clock.now(),
      })
      .returning({ id: commerceActions.id });
    const { built } = workers({
      COMMERCE_RECONCILE_POLL_MS: '20',
      COMMERCE_RECONCILE_GRACE_MS: '0',
    });
    built.start();
    try {
      await expect
        .poll(async () => {
          const [row] = await t.db
            .select({ status: commerceActions.status })
            .from(commerceActions)
            .where(eq(commerceActions.id, action?.id ?? ''));
          return row?.status;
        })
        .toBe('failed');
    } finally {
      await built.stop();
    }
  });
});
