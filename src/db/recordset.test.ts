import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, usdcRequest } from '../../test/fixtures.ts';
import { insertRecordset } from './recordset.ts';
import { chainBlocks, idempotencyKeys, payments } from './schema.ts';

/**
 * Rows written through one JSON parameter read back as drizzle's own insert writes them: each
 * column type, a database default, a `$defaultFn`, conflicts skipped and only new rows returned,
 * and only the rows a condition holds of.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

describe('insertRecordset', () => {
  it('writes JSON, times, small integers and text as drizzle does, and the default time', async () => {
    const row = (key: string) => ({
      scope: 'recordset',
      key,
      requestHash: 'h',
      claim: `c-${key}`,
      lockedUntil: new Date('2026-01-02T03:04:05.678Z'),
      status: 201,
      headers: { 'content-type': 'application/json', 'x-quote': 'a "b" \\ c' },
      body: '{"ok":true}',
      expiresAt: new Date('2026-01-03T00:00:00.000Z'),
    });
    await t.db.insert(idempotencyKeys).values(row('by-drizzle'));
    const written = await insertRecordset(t.db, idempotencyKeys, [row('one'), row('two')], {
      returning: { key: idempotencyKeys.key },
    });
    expect(written).toEqual([{ key: 'one' }, { key: 'two' }]);

    const read = await t.db
      .select()
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.scope, 'recordset'))
      .orderBy(idempotencyKeys.key);
    const [drizzle, ...ours] = read;
    if (!drizzle) throw new Error('no row');
    const unkeyed = ({ key, claim, createdAt, ...rest }: typeof drizzle) => rest;
    expect(read.map((r) => r.key)).toEqual(['by-drizzle', 'one', 'two']);
    for (const r of ours) {
      expect(unkeyed(r)).toEqual(unkeyed(drizzle));
      expect(r.headers).toEqual(row('x').headers);
      // Left to the database's default, as drizzle leaves it.
      expect(r.createdAt).toBeInstanceOf(Date);
    }
  });

  it('skips rows that conflict, returns only the new, and keeps 64-bit integers whole', async () => {
    const big = 2n ** 62n + 1n;
    const block = (number: bigint) => ({ network: 'recordset', number, hash: `0x${number}` });
    const options = {
      skipConflictsOn: [chainBlocks.network, chainBlocks.number],
      returning: { number: chainBlocks.number },
    };
    expect(await insertRecordset(t.db, chainBlocks, [block(big), block(1n)], options)).toEqual([
      { number: big },
      { number: 1n },
    ]);
    const again = await insertRecordset(
      t.db,
      chainBlocks,
      [block(1n), block(2n), { ...block(big), hash: 'changed' }],
      options,
    );
    expect(again).toEqual([{ number: 2n }]);
    const read = await t.db
      .select({ number: chainBlocks.number, hash: chainBlocks.hash })
      .from(chainBlocks)
      .where(eq(chainBlocks.network, 'recordset'))
      .orderBy(chainBlocks.number);
    expect(read).toEqual(
      [block(1n), block(2n), block(big)].map(({ number, hash }) => ({ number, hash })),
    );
  });

  it('writes only the rows its condition holds of, the rows named t', async () => {
    const block = (number: bigint) => ({ network: 'recordset-where', number, hash: `0x${number}` });
    const written = await insertRecordset(t.db, chainBlocks, [1n, 2n, 3n, 4n].map(block), {
      where: sql`t.number % 2 = 0`,
      returning: { number: chainBlocks.number },
    });
    expect(written).toEqual([{ number: 2n }, { number: 4n }]);
    const read = await t.db
      .select({ number: chainBlocks.number })
      .from(chainBlocks)
      .where(eq(chainBlocks.network, 'recordset-where'))
      .orderBy(chainBlocks.number);
    expect(read).toEqual([{ number: 2n }, { number: 4n }]);
  });

  it("fills a column's $defaultFn per row, and writes money and optional columns", async () => {
    const tenant = await createTenant(t.db);
    const request = await usdcRequest(t.db, t.chains, {
      accountId: tenant.accountId,
      network: 'base',
      expectedAmount: 1_000n,
      payee: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    });
    const payment = (logIndex: number) => ({
      accountId: tenant.accountId,
      requestRowId: request.id,
      network: 'base',
      txHash: `0x${'ab'.repeat(32)}`,
      logIndex,
      blockNumber: 7n,
      blockHash: `0x${'cd'.repeat(32)}`,
      amount: 2n ** 255n,
      feeAmount: 0n,
      payee: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      paymentReference: 'ref',
      timestamp: new Date('2026-05-06T07:08:09.000Z'),
      ...(logIndex === 1 && { sourceNetwork: 'arbitrum-one' }),
    });
    const written = await insertRecordset(t.db, payments, [payment(0), payment(1)], {
      returning: { id: payments.id },
    });
    const ids = written.map((row) => row.id);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    const read = await t.db
      .select()
      .from(payments)
      .where(inArray(payments.id, ids))
      .orderBy(payments.logIndex);
    expect(read.map((r) => [r.amount, r.blockNumber, r.timestamp, r.sourceNetwork])).toEqual([
      [2n ** 255n, 7n, new Date('2026-05-06T07:08:09.000Z'), null],
      [2n ** 255n, 7n, new Date('2026-05-06T07:08:09.000Z'), 'arbitrum-one'],
    ]);
    expect(read.map((r) => r.payeeKey)).toEqual([
      '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
      '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
    ]);
  });

  it('takes undefined as no value, and writes a lone surrogate as the driver would', async () => {
    const row = {
      scope: 'recordset-undefined',
      key: 'k',
      requestHash: 'h',
      claim: 'c',
      lockedUntil: new Date(),
      expiresAt: new Date(),
      // Left to the database's default, as drizzle leaves a column given undefined.
      createdAt: undefined,
      body: 'a \ud800 b',
    };
    await insertRecordset(t.db, idempotencyKeys, [row], {
      returning: { key: idempotencyKeys.key },
    });
    await t.db.insert(idempotencyKeys).values({ ...row, key: 'by-drizzle' });
    const read = await t.db
      .select({ createdAt: idempotencyKeys.createdAt, body: idempotencyKeys.body })
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.scope, 'recordset-undefined'))
      .orderBy(idempotencyKeys.key);
    expect(read.map((r) => r.body)).toEqual(['a \ufffd b', 'a \ufffd b']);
    for (const r of read) expect(r.createdAt).toBeInstanceOf(Date);
  });

  it('refuses a column with a database default that only some rows name', async () => {
    await expect(
      insertRecordset(
        t.db,
        idempotencyKeys,
        [
          {
            scope: 's',
            key: 'a',
            requestHash: 'h',
            claim: 'c',
            lockedUntil: new Date(),
            expiresAt: new Date(),
            createdAt: new Date(),
          },
          {
            scope: 's',
            key: 'b',
            requestHash: 'h',
            claim: 'c',
            lockedUntil: new Date(),
            expiresAt: new Date(),
          },
        ],
        { returning: { key: idempotencyKeys.key } },
      ),
    ).rejects.toThrow('createdAt has a database default: name it in every row or in none');
    expect(await t.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.scope, 's'))).toEqual(
      [],
    );
  });
});
