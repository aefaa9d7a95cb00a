import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/db/schema.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import { REORGED } from '../../src/requests/payment-events.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { testIndexer } from '../workers.ts';

/**
 * A reorganisation deeper than the confirmation depth (here the depth is 0): a payment was
 * recorded, then its block vanished. The indexer sees the remembered hash change, rolls the
 * payment back (request unpaid, link payable again) and records what the new chain holds.
 */

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let indexer: Indexer;

beforeAll(async () => {
  local = await standIn('base');
  t = await createTestApp({
    env: { ...local.env, CONFIRMATIONS_BASE: '0' },
    transports: local.transports,
  });
  tenant = await createTenant(t.db);
  indexer = testIndexer(t, { confirmations: 0 });
});
afterAll(async () => {
  await t.close();
  await local.chain.close();
});

const headers = () => ({ 'x-api-key': tenant.apiKey });

describe('a reorganisation below the checkpoint', () => {
  it('rolls the dropped payment back and records the new chain’s', async () => {
    const target = resolveTarget(t.chains, {
      walletAddress: accountOf(local.chain, 1).address,
      chainId: 8453,
      tokenAddress: local.chain.addresses.usdc,
    });
    const destination = await activateDestination(t.db, t.clock, tenant.accountId, target);
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: headers(),
      payload: { requests: [{ destinationId: destination.destinationId, amount: '8' }] },
    });
    const { token, requestIds } = created.json();
    // An endpoint no dispatcher serves here: its deliveries stay in the outbox to be looked at.
    const hook = await t.app.inject({
      method: 'POST',
      url: '/v1/webhook',
      headers: headers(),
      payload: { url: 'https://hooks.example.com/payreq' },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const outbox = () =>
      t.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.webhookId, hook.json().id))
        .orderBy(asc(webhookDeliveries.id));
    await indexer.tick();
    const forkPoint = await local.chain.snapshot();

    const payer = accountOf(local.chain, 2);
    const pay = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}/pay?wallet=${payer.address}`,
      headers: headers(),
    });
    await sendAll(local.chain, payer, pay.json().transactions);
    expect((await indexer.tick()).recorded).toBe(1);
    const status = () =>
      t.app.inject({ method: 'GET', url: `/v2/request/${requestIds[0]}`, headers: headers() });
    expect((await status()).json()).toMatchObject({ status: 'paid', totalAmountPaid: '8' });
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/v2/secure-payments/${token}`,
          headers: headers(),
        })
      ).statusCode,
    ).toBe(409);

    // The blocks holding the payment are replaced by longer, empty ones.
    await local.chain.revert(forkPoint);
    for (let i = 0; i < 4; i++) await local.chain.provider.request({ method: 'evm_mine' });
    const afterReorg = await indexer.tick();
    expect(afterReorg).toMatchObject({ rolledBack: 1, recorded: 0 });
    // What was not sent yet about the vanished payment never will be.
    const cancelled = await outbox();
    expect(cancelled.map((d) => d.event).sort()).toEqual([
      'payment.confirmed',
      'payment.confirmed.checkout',
    ]);
    for (const delivery of cancelled) {
      expect(delivery).toMatchObject({ status: 'failed', lastError: REORGED, attempts: 0 });
    }
    expect((await status()).json()).toMatchObject({
      status: 'pending',
      totalAmountPaid: '0',
      hasBeenPaid: false,
    });
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/v2/secure-payments/${token}`,
          headers: headers(),
        })
      ).statusCode,
    ).toBe(200);

    // Paid again on the new chain: recorded once.
    const again = await t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}/pay?wallet=${payer.address}`,
      headers: headers(),
    });
    await sendAll(local.chain, payer, again.json().transactions);
    expect((await indexer.tick()).recorded).toBe(1);
    expect((await status()).json()).toMatchObject({ status: 'paid', totalAmountPaid: '8' });
    const announced = (await outbox()).filter((d) => d.status === 'pending');
    expect(announced).toHaveLength(2);
    const search = await t.app.inject({
      method: 'GET',
      url: `/v2/payments?requestId=${requestIds[0]}`,
      headers: headers(),
    });
    expect(search.json().pagination.total).toBe(1);
  });
});
