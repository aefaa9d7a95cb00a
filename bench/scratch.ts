import pg from 'pg';

/**
 * Scratch Postgres databases for the benches, on 127.0.0.1:5432 (`BENCH_POSTGRES_URL` names
 * another server's maintenance database): created empty, dropped by the bench at its end.
 */
export const ADMIN_URL =
  process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs one statement on the maintenance database. */
export async function admin(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Creates `name` afresh; resolves with its URL and a function that drops it. */
export async function scratchDatabase(
  name: string,
): Promise<{ readonly url: string; drop(): Promise<void> }> {
  await admin(`drop database if exists ${name} with (force)`);
  await admin(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/**
 * Writes out what earlier work left in Postgres's buffers (a checkpoint), so a measurement
 * that follows a bulk load, another bench or a test run does not pay for that work's writes.
 * Skipped where the role may not (a checkpoint needs a superuser or pg_checkpoint).
 */
export async function settle(): Promise<void> {
  await admin('checkpoint').catch(() => {});
}
