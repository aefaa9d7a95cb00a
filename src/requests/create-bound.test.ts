import { eq } from 'drizzle-orm';
import type { PrivateKeyAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { createTenant, SHOP_ORIGIN, type Tenant } from '../../test/fixtures.ts';
import {
  apiKey,
  backendClient,
  createRequest,
  getRequest,
  local,
  setupRequestsApp,
  t,
  tenantB,
  validationErrors,
  wallet,
} from '../../test/requests.ts';
import { addSignedDestination } from '../../test/signed-destination.ts';
import { requests } from '../db/schema.ts';
import {
  bindDestination,
  deactivateDestination,
  findDestination,
} from '../destinations/destinations.ts';

/**
 * `POST /v2/request` with a client ID bound to a payee destination, over HTTP on the real app
 * (a local EVM standing in for base): the destination is registered through the signed flow.
 */

setupRequestsApp();

describe('POST /v2/request with a client ID bound to a destination', () => {
  /** Registers the wallet's base destination (USDC unless told) through the signed flow. */
  async function destination(
    tenant: Tenant,
    owner: PrivateKeyAccount,
    token: string = local.chain.addresses.usdc,
  ): Promise<string> {
    const target = { tokenAddress: token, chainId: 8453 };
    return (await addSignedDestination(t, apiKey(tenant), owner, target)).destinationId;
  }

  it('takes the payee from the bound destination when payee is omitted', async () => {
    const tenant = await createTenant(t.db, 'Bound shop');
    const owner = wallet(3);
    const row = await findDestination(t.db, tenant.accountId, await destination(tenant, owner));
    if (!row) throw new Error('destination not stored');
    await bindDestination(t.db, t.clock, tenant.accountId, tenant.backendClientId, row);

    const body = { amount: '3', invoiceCurrency: 'USDC-base', paymentCurrency: 'USDC-base' };
    const res = await createRequest(body, backendClient(tenant));
    expect(res.statusCode, res.body).toBe(201);
    const read = await getRequest(res.json().requestId, apiKey(tenant));
    expect(read.json()).toMatchObject({ payee: owner.address, expectedAmount: '3' });
    const [stored] = await t.db
      .select({ destinationId: requests.destinationId })
      .from(requests)
      .where(eq(requests.requestId, res.json().requestId));
    expect(stored?.destinationId).toBe(row.id);

    // Naming the bound wallet is fine; naming another is not, and writes nothing.
    const same = await createRequest({ ...body, payee: owner.address }, backendClient(tenant));
    expect(same.statusCode, same.body).toBe(201);
    const before = await t.db.$count(requests);
    const other = await createRequest({ ...body, payee: wallet(0).address }, backendClient(tenant));
    expect(other.statusCode).toBe(403);
    expect(other.json()).toMatchObject({
      message: 'Destination does not match the configured payment destination.',
      code: 'destination_mismatch',
    });
    // Nor can the binding be left behind by billing on another network.
    const elsewhere = await createRequest(
      {
        ...body,
        invoiceCurrency: 'USDC-matic',
        paymentCurrency: 'USDC-matic',
        payee: owner.address,
      },
      backendClient(tenant),
    );
    expect(validationErrors(elsewhere)).toEqual([
      {
        field: 'paymentCurrency',
        message: "must be on base, the network of the client ID's payee destination",
      },
    ]);
    expect(await t.db.$count(requests)).toBe(before);
    // The binding belongs to that client ID only.
    const viaKey = await createRequest(body, apiKey(tenant));
    expect(validationErrors(viaKey)).toEqual([{ field: 'payee', message: 'is required' }]);
    const viaBrowser = await createRequest(body, {
      'x-client-id': tenant.browserClientId,
      origin: SHOP_ORIGIN,
    });
    expect(validationErrors(viaBrowser)).toEqual([{ field: 'payee', message: 'is required' }]);
  });

  it('makes no requests once the bound destination is inactive', async () => {
    const tenant = await createTenant(t.db, 'Moved shop');
    const owner = wallet(3);
    const row = await findDestination(t.db, tenant.accountId, await destination(tenant, owner));
    if (!row) throw new Error('destination not stored');
    await bindDestination(t.db, t.clock, tenant.accountId, tenant.backendClientId, row);
    // The wallet ends its destination (a change of token would move the binding along).
    await deactivateDestination(t.db, t.clock, row);

    const body = { amount: '3', invoiceCurrency: 'USDC-base', paymentCurrency: 'USDC-base' };
    const res = await createRequest(body, backendClient(tenant));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'The payee destination bound to this client ID is inactive',
      code: 'destination_inactive',
    });
    const explicit = await createRequest({ ...body, payee: owner.address }, backendClient(tenant));
    expect(explicit.statusCode).toBe(400);
    expect(explicit.json().code).toBe('destination_inactive');
  });

  it("cannot bind another account's client ID", async () => {
    const tenant = await createTenant(t.db, 'Binder');
    const row = await findDestination(t.db, tenant.accountId, await destination(tenant, wallet(0)));
    if (!row) throw new Error('destination not stored');
    await expect(
      bindDestination(t.db, t.clock, tenant.accountId, tenantB.backendClientId, row),
    ).rejects.toMatchObject({ statusCode: 404, message: 'Client ID not found' });
  });
});
