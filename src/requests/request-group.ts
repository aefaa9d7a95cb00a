import type { Database } from '../db/client.ts';
import { groupCommit } from '../db/group-commit.ts';
import { preparedPerDatabase } from '../db/prepared.ts';
import { requests } from '../db/schema.ts';
import { type NewRequest, type RequestRow, requestValues } from './requests.ts';

/**
 * A request written with those other callers write at the same moment (`group-commit.ts`): one
 * multi-row INSERT for the group, each caller answered with its own row (found by its request
 * id, which is minted before the write), or its own error when the database refuses its row.
 */
export async function writeRequest(db: Database, item: NewRequest): Promise<RequestRow> {
  return requestWriter(db).write(requestValues(item));
}

type RequestValues = ReturnType<typeof requestValues>;

/** The group writer of a database's requests (its counts are what tests observe). */
export const requestWriter = preparedPerDatabase((db: Database) =>
  groupCommit<RequestValues, RequestRow>({
    writeGroup: async (rows) => {
      const written = await db
        .insert(requests)
        .values([...rows])
        .returning();
      const byId = new Map(written.map((row) => [row.requestId, row]));
      return rows.map((row) => {
        const found = byId.get(row.requestId);
        if (!found) throw new Error(`request ${row.requestId} was not written`);
        return found;
      });
    },
    writeOne: async (row) => {
      const [written] = await db.insert(requests).values(row).returning();
      if (!written) throw new Error('request insert returned no row');
      return written;
    },
  }),
);
