import { and, asc, eq, gt, isNotNull, isNull, ne, or } from 'drizzle-orm';
import type { KeyRing } from '../base/key-ring.ts';
import type { Database } from '../db/client.ts';
import { payers, paymentDetails } from '../db/schema/payers.ts';
import { type SealedTable, sealContext } from './personal.ts';

/**
 * `payreq payers reencrypt`: re-seals, under the ring's current key, every personal document
 * sealed under another, in batches by id. Safe while servers run: each row is rewritten only if
 * it still holds what was read (a request that re-sealed it meanwhile wins), and until a row is
 * rewritten its old key still opens it. A row no key of the ring opens is counted, not changed.
 */

const DEFAULT_BATCH = 200;

export interface ReencryptOutcome {
  readonly resealed: number;
  /** Rows sealed under a key the ring lacks, or that do not open. */
  readonly unreadable: number;
  /** The key ids the unreadable rows name (`none` for a row naming none). */
  readonly unreadableKeyIds: readonly string[];
}

export async function reencryptPersonalData(
  db: Database,
  keys: KeyRing,
  batchSize = DEFAULT_BATCH,
): Promise<ReencryptOutcome> {
  const outcomes = [
    await reencryptTable(db, keys, 'payers', batchSize),
    await reencryptTable(db, keys, 'payment_details', batchSize),
  ];
  return {
    resealed: outcomes.reduce((sum, o) => sum + o.resealed, 0),
    unreadable: outcomes.reduce((sum, o) => sum + o.unreadable, 0),
    unreadableKeyIds: [...new Set(outcomes.flatMap((o) => o.unreadableKeyIds))].sort(),
  };
}

async function reencryptTable(
  db: Database,
  keys: KeyRing,
  name: SealedTable,
  batchSize: number,
): Promise<ReencryptOutcome> {
  const table = name === 'payers' ? payers : paymentDetails;
  let resealed = 0;
  let unreadable = 0;
  const unreadableKeyIds = new Set<string>();
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await db
      .select({ id: table.id, personal: table.personal, keyId: table.keyId })
      .from(table)
      .where(
        and(
          gt(table.id, after),
          isNotNull(table.personal),
          or(isNull(table.keyId), ne(table.keyId, keys.currentId)),
        ),
      )
      .orderBy(asc(table.id))
      .limit(batchSize);
    for (const row of rows) {
      after = row.id;
      if (row.personal === null) continue;
      const context = sealContext(name, row.id);
      let plain: string;
      try {
        plain = keys.open(row.personal, context);
      } catch {
        unreadable++;
        unreadableKeyIds.add(row.keyId ?? 'none');
        continue;
      }
      const updated = await db
        .update(table)
        .set({ personal: keys.seal(plain, context), keyId: keys.currentId })
        .where(and(eq(table.id, row.id), eq(table.personal, row.personal)))
        .returning({ id: table.id });
      resealed += updated.length;
    }
    if (rows.length < batchSize) {
      return { resealed, unreadable, unreadableKeyIds: [...unreadableKeyIds] };
    }
  }
}
