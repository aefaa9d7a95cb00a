import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/database.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { apiKeys, clientIds, users } from '../db/schema.ts';
import { ensurePayPageClientId } from './client-id.ts';

let database: DatabaseHandle;

// A fresh database per test: each starts with no pay-page client ID.
beforeEach(async () => {
  database = await openTestDatabase();
});
afterEach(() => database.close());

async function firstPartyRows() {
  return database.db.select().from(clientIds).where(eq(clientIds.firstParty, true));
}

describe('ensurePayPageClientId', () => {
  it('makes one active client ID allowed only on PAY_URL’s origin, and returns it again after', async () => {
    const made = await ensurePayPageClientId(database.db, 'https://pay.example/checkout');
    expect(made).toMatch(/^cli_/);
    expect(await ensurePayPageClientId(database.db, 'https://pay.example/checkout')).toBe(made);
    const rows = await firstPartyRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      clientId: made,
      status: 'active',
      allowedDomains: ['https://pay.example'],
    });
  });

  it('makes one client ID when two processes start at once', async () => {
    const [one, two] = await Promise.all([
      ensurePayPageClientId(database.db, 'https://pay.example'),
      ensurePayPageClientId(database.db, 'https://pay.example'),
    ]);
    expect(one).toBe(two);
    expect(await firstPartyRows()).toHaveLength(1);
  });

  it('moves its allowed origin when PAY_URL changes, keeping the same client ID', async () => {
    const made = await ensurePayPageClientId(database.db, 'https://pay.example');
    expect(await ensurePayPageClientId(database.db, 'http://pay.internal:8080/pay')).toBe(made);
    const rows = await firstPartyRows();
    expect(rows.map((row) => row.allowedDomains)).toEqual([['http://pay.internal:8080']]);
  });

  it('lives on an account of its own that has no API key, user or other client ID', async () => {
    await ensurePayPageClientId(database.db, 'https://pay.example');
    const [row] = await firstPartyRows();
    if (!row) throw new Error('no pay-page client ID');
    const accountId = row.accountId;
    expect(
      await database.db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)),
    ).toEqual([]);
    expect(await database.db.select().from(users).where(eq(users.accountId, accountId))).toEqual(
      [],
    );
    const clients = await database.db
      .select({ id: clientIds.id })
      .from(clientIds)
      .where(eq(clientIds.accountId, accountId));
    expect(clients).toEqual([{ id: row.id }]);
  });
});
