import { describe, expect, it } from 'vitest';
import {
  add,
  apiKeyOf,
  BASE,
  DAI_BASE,
  getActive,
  getOne,
  NONCE_ERROR,
  remove,
  setupPayeeDestinations,
  signed,
  t,
  tenantA,
  tenantB,
  USDC_BASE,
  wallet,
} from '../../test/payee-destinations.ts';
import { interopChecksum } from './destination-id.ts';

/** Reading payee destinations (by wallet, by id) and deactivating one with its wallet's signature. */

setupPayeeDestinations();

describe('GET /v2/payee-destination?walletAddress=', () => {
  it('finds the active destination whatever the case of an EVM wallet', async () => {
    const owner = wallet(12);
    const created = await add(owner);
    for (const spelling of [owner.address, owner.address.toLowerCase(), upper(owner.address)]) {
      const res = await getActive(spelling);
      expect(res.statusCode, spelling).toBe(200);
      expect(res.json(), spelling).toMatchObject({
        destinationId: created.destinationId,
        walletAddress: owner.address,
      });
    }
  });

  it('returns null for a wallet without a destination', async () => {
    const res = await getActive('0x000000000000000000000000000000000000dEaD');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('null');
  });

  it("does not show another account's destination", async () => {
    const owner = wallet(12);
    const res = await getActive(owner.address, apiKeyOf(tenantB));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toBeNull();
  });

  it('requires walletAddress', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/payee-destination',
      headers: apiKeyOf(tenantA),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'walletAddress', message: 'is required' }]);
  });
});

describe('GET /v2/payee-destination/{destinationId}', () => {
  it('returns the destination by its URL-encoded id', async () => {
    const owner = wallet(13);
    const created = await add(owner);
    const res = await getOne(created.destinationId);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(created);
  });

  it('accepts the id with a lower-case wallet', async () => {
    const owner = wallet(13);
    const created = await add(owner);
    const res = await getOne(
      created.destinationId.replace(owner.address, owner.address.toLowerCase()),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().destinationId).toBe(created.destinationId);
  });

  it("answers 404 for another account's destination", async () => {
    const owner = wallet(13);
    const created = await add(owner);
    const res = await getOne(created.destinationId, apiKeyOf(tenantB));
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ message: 'Payee destination not found' });
  });

  it.each([
    ['garbage', 'not-a-destination'],
    ['a wrong checksum', `${wallet(13).address}@eip155:8453#00000000:${USDC_BASE}`],
    ['a bad wallet', `0x1234@eip155:8453#ABCDEF01:${USDC_BASE}`],
  ])('answers 400 Invalid destination ID format for %s', async (_case, id) => {
    const res = await getOne(id);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'Invalid destination ID format',
      code: 'invalid_destination_id',
    });
  });
});

describe('DELETE /v2/payee-destination/{destinationId}', () => {
  it('deactivates with the wallet’s deactivate signature and keeps the record', async () => {
    const owner = wallet(14);
    const created = await add(owner);
    const body = await signed(owner, { walletAddress: owner.address, action: 'deactivate' });
    const res = await remove(created.destinationId, body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ...created, active: false });

    const kept = await getOne(created.destinationId);
    expect(kept.statusCode).toBe(200);
    expect(kept.json().active).toBe(false);
    expect((await getActive(owner.address)).json()).toBeNull();
    // The nonce is spent.
    const again = await remove(created.destinationId, body);
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toBe(NONCE_ERROR);
  });

  it('refuses a signed message that names another destination', async () => {
    const owner = wallet(14);
    const created = await add(owner, USDC_BASE);
    const body = await signed(owner, {
      walletAddress: owner.address,
      action: 'deactivate',
      tokenAddress: DAI_BASE,
    });
    const res = await remove(created.destinationId, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'The signed message names another destination',
      code: 'signature_mismatch',
    });
    expect((await getOne(created.destinationId)).json().active).toBe(true);
  });

  it('refuses an add nonce', async () => {
    const owner = wallet(14);
    const created = await add(owner, USDC_BASE);
    const body = await signed(owner, { walletAddress: owner.address, action: 'add' });
    const res = await remove(created.destinationId, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('This nonce was issued for action add');
  });

  it('refuses a deactivate signature by another key', async () => {
    const owner = wallet(14);
    const created = await add(owner, USDC_BASE);
    const body = await signed(wallet(15), { walletAddress: owner.address, action: 'deactivate' });
    const res = await remove(created.destinationId, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Signature does not match the wallet address');
    expect((await getOne(created.destinationId)).json().active).toBe(true);
  });

  it('answers 400 for a destination this account does not have', async () => {
    const owner = wallet(15);
    const body = await signed(owner, { walletAddress: owner.address, action: 'deactivate' });
    const unknown = `${owner.address}@eip155:8453#${interopChecksum(owner.address, BASE)}:${USDC_BASE}`;
    const res = await remove(unknown, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: 'Payee destination not found' });
  });

  it("answers 400 for another account's destination", async () => {
    const owner = wallet(14);
    const created = await add(owner, USDC_BASE);
    const body = await signed(
      owner,
      { walletAddress: owner.address, action: 'deactivate' },
      apiKeyOf(tenantB),
    );
    const res = await remove(created.destinationId, body, apiKeyOf(tenantB));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Payee destination not found');
    expect((await getOne(created.destinationId)).json().active).toBe(true);
  });

  it('answers 400 Invalid destination ID format for garbage', async () => {
    const owner = wallet(14);
    const body = await signed(owner, { walletAddress: owner.address, action: 'deactivate' });
    const res = await remove('garbage', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Invalid destination ID format');
  });
});

function upper(address: string): string {
  return `0x${address.slice(2).toUpperCase()}`;
}
