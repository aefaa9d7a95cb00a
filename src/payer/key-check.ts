import { and, count, isNotNull, notInArray } from 'drizzle-orm';
import type { KeyRing } from '../base/key-ring.ts';
import type { Database } from '../db/client.ts';
import { payers, paymentDetails } from '../db/schema/payers.ts';

/**
 * The key ids personal data is sealed under that the ring does not give, with how many rows
 * each: a server started without them could not open those payers (docs/guides/payers.md).
 */
async function missingDataKeys(
  db: Database,
  keys: KeyRing,
): Promise<{ readonly keyId: string; readonly rows: number }[]> {
  const found = new Map<string, number>();
  for (const table of [payers, paymentDetails]) {
    const rows = await db
      .select({ keyId: table.keyId, rows: count() })
      .from(table)
      .where(
        and(
          isNotNull(table.personal),
          isNotNull(table.keyId),
          notInArray(table.keyId, [...keys.ids]),
        ),
      )
      .groupBy(table.keyId);
    for (const row of rows) {
      const keyId = row.keyId ?? '';
      found.set(keyId, (found.get(keyId) ?? 0) + row.rows);
    }
  }
  return [...found]
    .map(([keyId, rows]) => ({ keyId, rows }))
    .sort((a, b) => (a.keyId < b.keyId ? -1 : 1));
}

/** The start's one line when keys are missing; null when every sealed row has its key. */
export async function missingDataKeysMessage(db: Database, keys: KeyRing): Promise<string | null> {
  const missing = await missingDataKeys(db, keys);
  if (missing.length === 0) return null;
  const list = missing.map((m) => `${m.keyId} (${m.rows} row(s))`).join(', ');
  return `personal data is sealed under key id(s) ${list}, which neither DATA_KEYS nor SECRET_KEY gives; add each as id:key to DATA_KEYS (the key it was sealed with), then start again`;
}
