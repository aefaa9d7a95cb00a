import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/database.ts';
import { ValidationError } from '../base/errors.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { createAccount } from './accounts.ts';
import { MAX_ALLOWED_DOMAINS } from './client-id-rules.ts';
import { createClientId, findClientId } from './client-ids.ts';

let database: DatabaseHandle;
let accountId: string;

beforeAll(async () => {
  database = await openTestDatabase();
  ({ accountId } = await createAccount(database.db, 'Shop'));
});
afterAll(() => database.close());

async function validationErrors(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('createClientId', () => {
  it('stores normalised, de-duplicated origins and mints an unguessable cli_ value', async () => {
    const row = await createClientId(database.db, {
      accountId,
      label: '  Web shop  ',
      allowedDomains: ['https://Shop.Example/', 'https://shop.example', 'http://localhost:3000'],
    });
    expect(row.clientId).toMatch(/^cli_[A-Za-z0-9_-]{32}$/);
    expect(row.label).toBe('Web shop');
    expect(row.allowedDomains).toEqual(['https://shop.example', 'http://localhost:3000']);
    expect(row.status).toBe('active');
    expect((await findClientId(database.db, row.clientId))?.id).toBe(row.id);
  });

  it('takes at most 10 domains and names each bad one', async () => {
    const eleven = Array.from(
      { length: MAX_ALLOWED_DOMAINS + 1 },
      (_, i) => `https://s${i}.example`,
    );
    expect(
      await validationErrors(() =>
        createClientId(database.db, { accountId, label: 'x', allowedDomains: eleven }),
      ),
    ).toEqual([{ field: 'allowedDomains', message: 'must contain at most 10 origins' }]);
    const errors = await validationErrors(() =>
      createClientId(database.db, {
        accountId,
        label: 'x',
        allowedDomains: ['https://ok.example', 'http://shop.example', 'https://shop.example/pay'],
      }),
    );
    expect(errors?.map((e) => e.field)).toEqual(['allowedDomains[1]', 'allowedDomains[2]']);
  });

  it('wants a label of 1 to 100 characters', async () => {
    for (const label of ['', '   ', 'x'.repeat(101)]) {
      const errors = await validationErrors(() =>
        createClientId(database.db, { accountId, label, allowedDomains: [] }),
      );
      expect(errors).toEqual([{ field: 'label', message: 'must be 1 to 100 characters' }]);
    }
  });

  it('finds nothing for values that are not client IDs', async () => {
    expect(await findClientId(database.db, 'sk_not_a_client')).toBeNull();
    expect(await findClientId(database.db, `cli_${'x'.repeat(100)}`)).toBeNull();
  });
});
