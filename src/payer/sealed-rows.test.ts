import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankBody, kycBody, type PayerWorld, startPayerWorld } from '../../test/payer-world.ts';
import { createKeyRing, type KeyRing } from '../base/key-ring.ts';
import { payers, paymentDetails } from '../db/schema/payers.ts';
import { openPayer, openPaymentDetail } from './personal.ts';
import { reencryptPersonalData } from './reencrypt.ts';

/**
 * Personal data at rest: no test value is in the rows in clear, each document is bound to its
 * row, and a key rotation (a new current key, the old one still known) keeps everything
 * readable before, during and after `reencryptPersonalData`, after which the old key can go.
 */

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const ringA = createKeyRing({ defaultKey: keyA });
const ringAB = createKeyRing({
  defaultKey: keyA,
  extra: [{ id: 'key-b', key: keyB }],
  currentId: 'key-b',
});
const ringB = createKeyRing({
  defaultKey: randomBytes(32),
  extra: [{ id: 'key-b', key: keyB }],
  currentId: 'key-b',
});

/** The app's ring, switched by the test as an operator switches DATA_KEY_ID and restarts. */
let active: KeyRing = ringA;
const switchable: KeyRing = {
  get currentId() {
    return active.currentId;
  },
  get ids() {
    return active.ids;
  },
  seal: (plain, context) => active.seal(plain, context),
  open: (sealed, context) => active.open(sealed, context),
  keyIdOf: (sealed) => active.keyIdOf(sealed),
  digest: (data, context) => active.digest(data, context),
};

let w: PayerWorld;
let apiKey: string;
const USERS = ['rot-1', 'rot-2', 'rot-3'];

beforeAll(async () => {
  w = await startPayerWorld({ keyRing: switchable });
  apiKey = (await w.tenant()).tenant.apiKey;
  for (const [n, user] of USERS.entries()) {
    expect((await w.call('POST', '/v2/payer', apiKey, kycBody(user, `77${n}1`))).status).toBe(200);
    const added = await w.call(
      'POST',
      `/v2/payer/${user}/payment-details`,
      apiKey,
      bankBody(`77${n}1`),
    );
    expect(added.status).toBe(201);
  }
});
afterAll(() => w.close());

async function rows() {
  return {
    payers: await w.t.db.select().from(payers),
    details: await w.t.db.select().from(paymentDetails),
  };
}

/** Every payer's bank details answer with the values sent. */
async function allReadable(): Promise<void> {
  for (const [n, user] of USERS.entries()) {
    const res = await w.call('GET', `/v2/payer/${user}/payment-details`, apiKey);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.paymentDetails).toEqual([
      expect.objectContaining({ accountName: `Grace Hopper 77${n}1` }),
    ]);
  }
}

describe('personal data at rest', () => {
  it('holds none of the test’s personal values in clear', async () => {
    const raw = JSON.stringify(await rows());
    for (const [n] of USERS.entries()) {
      const tag = `77${n}1`;
      const personal = { ...kycBody('x', tag), ...bankBody(tag) };
      const {
        clientUserId: _c,
        beneficiaryType: _b,
        country: _co,
        nationality: _na,
        state: _s,
        currency: _cu,
        documentType: _dt,
        bankName: _bn,
        ...values
      } = personal;
      for (const value of Object.values(values)) expect(raw, value).not.toContain(value);
    }
    const { payers: payerRows } = await rows();
    for (const row of payerRows)
      expect(row.personal).toMatch(new RegExp(`^k1\\.${ringA.currentId}\\.`));
  });

  it('binds each document to its row: copied to another, it does not open', async () => {
    const [first, second] = (await rows()).payers;
    if (!first?.personal || !second) throw new Error('two payers expected');
    expect(openPayer(ringA, first.id, first.personal).lastName).toMatch(/^Hopper77/);
    expect(() => openPayer(ringA, second.id, String(first.personal))).toThrow();
  });
});

describe('a key rotation', () => {
  it('opens everything once the current key is B and A is still known', async () => {
    active = ringAB;
    await allReadable();
    // A new submission is sealed under B at once.
    expect((await w.call('POST', '/v2/payer', apiKey, kycBody('rot-new', '7791'))).status).toBe(
      200,
    );
    const [fresh] = await w.t.db.select().from(payers).where(eq(payers.clientUserId, 'rot-new'));
    expect(fresh?.keyId).toBe('key-b');
  });

  it('re-seals every row under B while requests keep reading them', async () => {
    const oldPayer = (await rows()).payers.find((row) => row.keyId !== 'key-b');
    const [outcome] = await Promise.all([
      reencryptPersonalData(w.t.db, ringAB, 1),
      allReadable(),
      allReadable(),
    ]);
    expect(outcome).toEqual({ resealed: 6, unreadable: 0, unreadableKeyIds: [] });
    const after = await rows();
    for (const row of [...after.payers, ...after.details]) expect(row.keyId).toBe('key-b');
    // Run again: nothing left to do.
    expect(await reencryptPersonalData(w.t.db, ringAB)).toEqual({
      resealed: 0,
      unreadable: 0,
      unreadableKeyIds: [],
    });
    // A is gone: everything still opens, an old ciphertext no longer does.
    active = ringB;
    await allReadable();
    for (const row of after.details) {
      expect(openPaymentDetail(ringB, row.id, String(row.personal)).postalCode).toBe('22202');
    }
    if (!oldPayer?.personal) throw new Error('an old row expected');
    expect(() => openPayer(ringB, oldPayer.id, String(oldPayer.personal))).toThrow(/not given/);
  });

  it('counts rows under a key it lacks and leaves them as they are', async () => {
    const ringC = createKeyRing({
      defaultKey: randomBytes(32),
      extra: [{ id: 'key-c', key: randomBytes(32) }],
      currentId: 'key-c',
    });
    expect(await reencryptPersonalData(w.t.db, ringC)).toEqual({
      resealed: 0,
      unreadable: 7,
      unreadableKeyIds: ['key-b'],
    });
    const after = await rows();
    for (const row of [...after.payers, ...after.details]) expect(row.keyId).toBe('key-b');
  });
});
