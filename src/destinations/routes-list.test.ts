import { describe, expect, it } from 'vitest';
import { createTenant } from '../../test/fixtures.ts';
import {
  add,
  apiKeyOf,
  DAI_BASE,
  remove,
  setupPayeeDestinations,
  signed,
  t,
  USDC_BASE,
  wallet,
} from '../../test/payee-destinations.ts';

/** Ours, for the dashboard: `GET /v2/dashboard/destinations`, the account's destinations. */

setupPayeeDestinations();

function list(query: string, headers: Record<string, string>) {
  return t.app.inject({ method: 'GET', url: `/v2/dashboard/destinations?${query}`, headers });
}

describe('GET /v2/dashboard/destinations', () => {
  it('lists the account’s destinations newest first, page by page, and only its own', async () => {
    const shop = await createTenant(t.db, 'Destinations shop');
    const other = await createTenant(t.db, 'Another shop');
    const key = apiKeyOf(shop);
    // The test clock stands still: each destination a minute after the one before.
    const first = await add(wallet(1), USDC_BASE, key);
    t.clock.advance(60_000);
    const second = await add(wallet(2), DAI_BASE, key);
    t.clock.advance(60_000);
    const third = await add(wallet(3), USDC_BASE, key);
    const off = await signed(
      wallet(2),
      { walletAddress: wallet(2).address, action: 'deactivate', tokenAddress: DAI_BASE },
      key,
    );
    expect((await remove(second.destinationId, off, key)).statusCode).toBe(200);

    const one = await list('limit=2', key);
    expect(one.statusCode, one.body).toBe(200);
    const page1 = one.json();
    expect(page1.destinations.map((d: { destinationId: string }) => d.destinationId)).toEqual([
      third.destinationId,
      second.destinationId,
    ]);
    expect(page1.destinations[0]).toEqual(third);
    expect(page1.pagination).toMatchObject({ limit: 2, hasMore: true });
    const two = await list(`limit=2&cursor=${page1.pagination.nextCursor}`, key);
    expect(two.json()).toEqual({
      destinations: [first],
      pagination: { limit: 2, nextCursor: null, hasMore: false },
    });

    const active = await list('active=true', key);
    expect(active.json().destinations.map((d: { active: boolean }) => d.active)).toEqual([
      true,
      true,
    ]);
    const inactive = await list('active=false', key);
    expect(inactive.json().destinations).toEqual([{ ...second, active: false }]);

    // Another account sees none of them.
    const theirs = await list('', apiKeyOf(other));
    expect(theirs.json().destinations).toEqual([]);
  });

  it('refuses a cursor it did not give, with a 400', async () => {
    const shop = await createTenant(t.db, 'Cursor shop');
    const bad = await list('cursor=bm90LWEtY3Vyc29y', apiKeyOf(shop));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('invalid_cursor');
  });
});
