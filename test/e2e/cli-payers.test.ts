import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createAccount } from '../../src/auth/accounts.ts';
import { createKeyRing } from '../../src/base/key-ring.ts';
import { uuidV7 } from '../../src/base/uuid-v7.ts';
import { parseConfig } from '../../src/config/config.ts';
import { migrateDatabase } from '../../src/db/migrate.ts';
import { openDatabase } from '../../src/db/open.ts';
import { payers } from '../../src/db/schema/payers.ts';
import { openPayer, sealPersonal } from '../../src/payer/personal.ts';
import { emptyPostgresDatabase } from '../database.ts';
import { processEnv, runCli } from '../process.ts';

/**
 * `payreq payers reencrypt` as an operator runs it after setting a new DATA_KEY_ID: a real
 * process re-seals the payer sealed under SECRET_KEY under the new key, which alone then opens it.
 */

const backend = inject('testDatabase').kind;
const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

describe(`payreq payers reencrypt on ${backend}`, () => {
  it('re-seals every row under the new key', async () => {
    const secretKey = randomBytes(32);
    const newKey = randomBytes(32);
    const env = processEnv(
      { SECRET_KEY: secretKey.toString('hex') },
      { migrated: backend === 'pglite' },
    );
    if (backend === 'postgres') {
      const database = await emptyPostgresDatabase();
      cleanup.push(database.drop);
      env.DATABASE_URL = database.url;
    }
    const config = parseConfig(env as Record<string, string>);
    const id = uuidV7();
    const personal = {
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      beneficiaryType: 'individual' as const,
      dateOfBirth: '1990-12-10',
      addressLine1: '1 Main St',
      city: 'Springfield',
      state: 'IL',
      postcode: '62701',
      country: 'US',
      nationality: 'US',
      phone: '+15555550100',
      ssn: '000-00-0000',
    };
    const old = createKeyRing({ defaultKey: secretKey });
    let database = await openDatabase(config);
    try {
      await migrateDatabase(database);
      const { accountId } = await createAccount(database.db, 'Rotating');
      await database.db.insert(payers).values({
        id,
        accountId,
        clientUserId: 'u1',
        ...sealPersonal(old, 'payers', id, personal),
      });
    } finally {
      await database.close();
    }

    const result = await runCli(['payers', 'reencrypt', '--json'], {
      ...env,
      DATA_KEYS: `new-key:${newKey.toString('hex')}`,
      DATA_KEY_ID: 'new-key',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      currentKeyId: 'new-key',
      resealed: 1,
      unreadable: 0,
      unreadableKeyIds: [],
    });

    database = await openDatabase(config);
    try {
      const [row] = await database.db.select().from(payers);
      expect(row?.keyId).toBe('new-key');
      const only = createKeyRing({
        defaultKey: randomBytes(32),
        extra: [{ id: 'new-key', key: newKey }],
        currentId: 'new-key',
      });
      expect(openPayer(only, id, String(row?.personal))).toEqual(personal);
    } finally {
      await database.close();
    }

    // A ring without new-key cannot open the row: counted, named, and the run fails.
    const lacking = await runCli(['payers', 'reencrypt', '--json'], {
      ...env,
      DATA_KEYS: `newer-key:${randomBytes(32).toString('hex')}`,
      DATA_KEY_ID: 'newer-key',
    });
    expect(lacking.code).toBe(1);
    expect(JSON.parse(lacking.stdout)).toEqual({
      currentKeyId: 'newer-key',
      resealed: 0,
      unreadable: 1,
      unreadableKeyIds: ['new-key'],
    });
    expect(lacking.stderr).toContain(
      '1 record(s) could not be opened, sealed under key id(s) new-key that DATA_KEYS does not give',
    );
  }, 120_000);
});
