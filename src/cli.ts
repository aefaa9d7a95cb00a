#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { eq } from 'drizzle-orm';
import { createAccount } from './auth/accounts.ts';
import { issueApiKey, revokeApiKeyByValue } from './auth/api-keys.ts';
import { createClientId } from './auth/client-ids.ts';
import { systemClock } from './clock.ts';
import { ConfigError } from './config.ts';
import { type DatabaseHandle, openDatabase } from './db/client.ts';
import { migrateDatabase } from './db/migrate.ts';
import { accounts } from './db/schema.ts';
import { AppError } from './errors.ts';
import { configFromEnvironment, serve } from './main.ts';
import { createOrchestrator } from './orchestrators/orchestrators.ts';

/**
 * Operator CLI: `payreq <command>`. Works on the same DATA_DIR / DATABASE_URL as the server
 * (with the embedded database, only while the server is stopped). Secrets are printed once.
 */

const USAGE = `Usage: payreq <command> [options]

Commands:
  serve                                         run the service (what npm start runs)
  migrate                                       apply database migrations
  account create --name <name>                  create an account and its first API key
  api-key create --account <id> [--label <l>]   issue another API key for an account
  api-key revoke --key <apiKey>                 revoke a key for good (e.g. after a leak)
  client-id create --account <id> [--label <l>] [--domain <origin>]...
                                                create a client ID (no --domain: backend)
  orchestrator create --name <name>             create an orchestrator and its key

Options:
  --json    print one JSON object instead of text
  --help    show this help`;

class UsageError extends Error {}

type Values = {
  name?: string | undefined;
  account?: string | undefined;
  label?: string | undefined;
  key?: string | undefined;
  domain?: string[] | undefined;
  json?: boolean | undefined;
  help?: boolean | undefined;
};

export async function runCli(argv: readonly string[], out: (line: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      account: { type: 'string' },
      label: { type: 'string' },
      key: { type: 'string' },
      domain: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals.join(' ');
  if (values.help || command === '') {
    out(USAGE);
    return;
  }
  if (command === 'serve') return serve();

  const config = configFromEnvironment();
  const database = await openDatabase(config);
  try {
    await migrateDatabase(database);
    if (command === 'migrate') {
      print(values, out, { migrated: true }, `Database is up to date (${database.kind}).`);
      return;
    }
    await runCommand(command, values, database, out);
  } finally {
    await database.close();
  }
}

async function runCommand(
  command: string,
  values: Values,
  database: DatabaseHandle,
  out: (line: string) => void,
): Promise<void> {
  const db = database.db;
  switch (command) {
    case 'account create': {
      const created = await createAccount(db, required(values.name, '--name'));
      print(values, out, created, [
        `Account ${created.accountId} created.`,
        `API key (shown once, store it now): ${created.apiKey}`,
      ]);
      return;
    }
    case 'api-key create': {
      const accountId = await existingAccount(db, required(values.account, '--account'));
      const { apiKey } = await issueApiKey(db, accountId, values.label ?? null);
      print(values, out, { apiKey }, `API key (shown once, store it now): ${apiKey}`);
      return;
    }
    case 'api-key revoke': {
      const outcome = await revokeApiKeyByValue(db, systemClock, required(values.key, '--key'));
      if (outcome === 'unknown') throw new UsageError('no such API key');
      print(
        values,
        out,
        { revoked: true },
        outcome === 'revoked' ? 'API key revoked.' : 'API key was already revoked.',
      );
      return;
    }
    case 'client-id create': {
      const accountId = await existingAccount(db, required(values.account, '--account'));
      const domains = values.domain ?? [];
      const row = await createClientId(db, {
        accountId,
        label: values.label ?? (domains.length === 0 ? 'Backend' : (domains[0] ?? 'Client')),
        allowedDomains: domains,
      });
      print(values, out, { clientId: row.clientId }, [
        `Client ID: ${row.clientId}`,
        row.allowedDomains.length === 0
          ? 'No allowed domains: a backend client ID, keep it secret like an API key.'
          : `Allowed origins: ${row.allowedDomains.join(', ')}`,
      ]);
      return;
    }
    case 'orchestrator create': {
      const created = await createOrchestrator(db, required(values.name, '--name'));
      print(values, out, created, [
        `Orchestrator ${created.orchestratorId} created.`,
        `Orchestrator key (shown once, store it now): ${created.orchestratorKey}`,
      ]);
      return;
    }
    default:
      throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required`);
  return value.trim();
}

async function existingAccount(db: DatabaseHandle['db'], id: string): Promise<string> {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const [row] = uuid.test(id)
    ? await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, id))
    : [];
  if (!row) throw new UsageError(`no account ${id}`);
  return row.id;
}

function print(
  values: Values,
  out: (line: string) => void,
  json: object,
  text: string | readonly string[],
): void {
  if (values.json) out(JSON.stringify(json));
  else out(typeof text === 'string' ? text : text.join('\n'));
}

if (import.meta.main) {
  try {
    await runCli(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`));
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof AppError) {
      const details =
        error instanceof AppError && error.errors
          ? `: ${error.errors.map((e) => `${e.field} ${e.message}`).join('; ')}`
          : '';
      console.error(`payreq: ${error.message}${details}`);
    } else {
      console.error(`payreq: ${error instanceof Error ? error.message : String(error)}`);
    }
    process.exitCode = 1;
  }
}
