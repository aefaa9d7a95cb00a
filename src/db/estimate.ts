import { type SQL, sql } from 'drizzle-orm';
import { type Database, queryRows } from './client.ts';

interface PlanNode {
  readonly 'Plan Rows'?: number;
}

/**
 * The planner's estimate of how many rows `query` returns, from table statistics: one
 * planning step, no rows read, so it costs the same at any table size. Used where an exact
 * count would read every matching row.
 */
export async function plannedRows(db: Database, query: SQL): Promise<number> {
  const [row] = await queryRows<Record<string, unknown>>(db, sql`explain (format json) ${query}`);
  const raw = row === undefined ? undefined : Object.values(row)[0];
  // Postgres' driver parses the json column; PGlite may hand it over as text.
  const plans = (typeof raw === 'string' ? JSON.parse(raw) : raw) as
    | { readonly Plan?: PlanNode }[]
    | undefined;
  const rows = plans?.[0]?.Plan?.['Plan Rows'];
  return typeof rows === 'number' && Number.isFinite(rows) ? Math.round(rows) : 0;
}
