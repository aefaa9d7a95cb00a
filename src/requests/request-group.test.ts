import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { requests } from '../db/schema.ts';
import { resolveTarget } from '../destinations/target.ts';
import { requestWriter, writeRequest } from './request-group.ts';
import type { NewRequest } from './requests.ts';

/**
 * Group commit of requests (request-group.ts): the requests and payouts callers create at the
 * same moment go in one multi-row INSERT, and each caller gets its own row or its own error.
 */

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db);
});
afterAll(() => t.close());

function newRequest(amount: bigint, extra: Partial<NewRequest> = {}): NewRequest {
  const target = resolveTarget(t.chains, {
    walletAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    chainId: 8453,
    tokenAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  });
  return {
    accountId: tenant.accountId,
    clientIdId: null,
    network: target.network,
    invoiceCurrency: target.currency,
    paymentCurrency: target.currency,
    expectedAmount: amount,
    payee: target.id.walletAddress,
    ...extra,
  };
}

describe('group commit of requests', () => {
  it('answers each caller its own row, in fewer writes than rows', async () => {
    const writes = requestWriter(t.db).stats.writes;
    const rows = await Promise.all(
      Array.from({ length: 12 }, (_, i) => writeRequest(t.db, newRequest(BigInt(i + 1)))),
    );
    expect(rows.map((row) => row.expectedAmount)).toEqual(
      Array.from({ length: 12 }, (_, i) => BigInt(i + 1)),
    );
    const stored = await t.db
      .select({ requestId: requests.requestId, amount: requests.expectedAmount })
      .from(requests)
      .where(
        inArray(
          requests.requestId,
          rows.map((row) => row.requestId),
        ),
      );
    expect(new Map(stored.map((row) => [row.requestId, row.amount]))).toEqual(
      new Map(rows.map((row) => [row.requestId, row.expectedAmount])),
    );
    expect(requestWriter(t.db).stats.writes - writes).toBeLessThan(12);
  });

  it("fails only the caller whose row breaks a constraint; the others' rows are written", async () => {
    const original = await writeRequest(t.db, newRequest(1n));
    // An occurrence of an original is unique: the fourth caller repeats one already written.
    const occurrence = (n: number) => ({
      originalRequestId: original.requestId,
      originalRequestPaymentReference: original.paymentReference,
      occurrence: n,
    });
    await writeRequest(t.db, newRequest(2n, occurrence(1)));
    const retried = requestWriter(t.db).stats.retriedGroups;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        writeRequest(t.db, newRequest(10n + BigInt(i), occurrence(i === 3 ? 1 : i + 2))),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(
      Array.from({ length: 8 }, (_, i) => (i === 3 ? 'rejected' : 'fulfilled')),
    );
    expect(requestWriter(t.db).stats.retriedGroups).toBeGreaterThan(retried);
    const stored = await t.db
      .select({ amount: requests.expectedAmount, occurrence: requests.occurrence })
      .from(requests)
      .where(eq(requests.originalRequestId, original.requestId))
      .orderBy(requests.occurrence);
    // Occurrence 1 is still the first one written; each good caller's row is there once.
    expect(stored).toEqual([
      { amount: 2n, occurrence: 1 },
      ...[0, 1, 2, 4, 5, 6, 7].map((i) => ({ amount: 10n + BigInt(i), occurrence: i + 2 })),
    ]);
  });
});
