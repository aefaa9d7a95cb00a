import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { DatabaseHandle } from './client.ts';
import * as schema from './schema.ts';

/**
 * The Postgres engine (`DATABASE_URL`). A module of its own so that a process on the embedded
 * database never loads `pg` and its drizzle driver, and the reverse.
 */

const POSTGRES_POOL_SIZE = 10;
/** The dispatcher's claim, its record, and its failing of a dead endpoint's deliveries. */
const QUEUE_POOL_SIZE = 3;

export function openPostgres(url: string, poolSize = POSTGRES_POOL_SIZE): DatabaseHandle {
  const pool = openPool(url, poolSize);
  // `DatabaseHandle.queue` says why. A pool connects on its first query, so a process that
  // sends no webhooks opens none of these.
  const queuePool = openPool(url, QUEUE_POOL_SIZE, '-c enable_bitmapscan=off');
  return {
    db: drizzle({ client: pool, schema, casing: 'snake_case' }),
    queue: drizzle({ client: queuePool, schema, casing: 'snake_case' }),
    kind: 'postgres',
    engine: { kind: 'postgres', pool, queuePool },
    ping: async () => {
      await pool.query('select 1');
    },
    close: async () => {
      await Promise.all([pool.end(), queuePool.end()]);
    },
  };
}

/**
 * `pg` copies each query's config object with its property descriptors before it runs it
 * (`cloneQueryConfig`), which V8 makes slow: 3.7 µs a query on the bench machine, the largest
 * single cost of creating a link in a CPU profile. A config whose properties live on its
 * prototype copies in 0.2 µs, so each query is given a fresh object on top of the caller's
 * (drizzle keeps one per prepared statement) and reads its fields through it; what `pg` sets
 * on the copy (the values, the callback) never reaches the caller's object.
 */
class Client extends pg.Client {}
const clientQuery = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
Client.prototype.query = function query(this: pg.Client, config: unknown, ...rest: unknown[]) {
  return clientQuery.call(this, plainConfig(config) ? Object.create(config) : config, ...rest);
} as typeof pg.Client.prototype.query;

/**
 * `pg` prepares, for every result, an empty row object with a key per column (`addFields`), to
 * copy for each row, even when rows come as arrays, as drizzle asks for them: on a link's read
 * (its row joined to its requests, some seventy columns) that object was a ninth of the
 * route's CPU. For array rows, only what they are parsed with is kept. A `pg` whose results
 * are shaped otherwise keeps its own `addFields`.
 */
interface ResultInternals {
  rowAsArray: boolean;
  fields: unknown;
  _parsers: unknown[] | undefined;
  _types: { getTypeParser(oid: number, format: string): unknown } | undefined;
  _prebuiltEmptyResultObject: unknown;
}
type Field = { readonly dataTypeID: number; readonly format?: string };
const resultPrototype = (pg as unknown as { Result?: { prototype: object } }).Result?.prototype;
const fullAddFields =
  resultPrototype !== undefined && '_parseRowAsArray' in resultPrototype
    ? (resultPrototype as { addFields?: (this: ResultInternals, fields: Field[]) => void })
        .addFields
    : undefined;
if (resultPrototype !== undefined && fullAddFields !== undefined) {
  (resultPrototype as { addFields: unknown }).addFields = function addFields(
    this: ResultInternals,
    fields: Field[],
  ) {
    if (!this.rowAsArray) return fullAddFields.call(this, fields);
    const types = this._types;
    this.fields = fields;
    this._parsers = fields.map(({ dataTypeID, format }) => {
      const kind = format === 'binary' ? 'binary' : 'text';
      return types
        ? types.getTypeParser(dataTypeID, kind)
        : pg.types.getTypeParser(dataTypeID, kind);
    });
    this._prebuiltEmptyResultObject = null;
  };
}

function plainConfig(config: unknown): config is object {
  return (
    typeof config === 'object' &&
    config !== null &&
    Object.getPrototypeOf(config) === Object.prototype &&
    typeof (config as { submit?: unknown }).submit !== 'function'
  );
}

function openPool(url: string, max: number, options?: string): pg.Pool {
  // A request waits at most this long for a connection, then fails rather than queue forever.
  const pool = new pg.Pool({
    Client,
    connectionString: url,
    max,
    connectionTimeoutMillis: 10_000,
    ...(options !== undefined && { options }),
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Nor one checked out (a transaction between two statements) when the server ends its
  // connection (a restart's "terminating connection due to administrator command"): `pg` emits
  // the error on the client as well as failing its queries, and the pool listens only while the
  // client is idle. Its queries fail; the pool drops it when it comes back.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}
