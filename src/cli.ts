#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { eq } from 'drizzle-orm';
import { createAccount } from './auth/accounts.ts';
import { issueApiKey, revokeApiKeyByValue } from './auth/api-keys.ts';
import { createClientId } from './auth/client-ids.ts';
import { createChainRegistry } from './chains/registry.ts';
import { systemClock } from './clock.ts';
import { type Config, ConfigError } from './config.ts';
import { type DatabaseHandle, openDatabase } from './db/client.ts';
import { migrateDatabase } from './db/migrate.ts';
import { accounts } from './db/schema.ts';
import { NATIVE_TOKEN_ADDRESS } from './destinations/destination-id.ts';
import {
  activateDestination,
  bindDestination,
  resolveTarget,
} from './destinations/destinations.ts';
import { AppError } from './errors.ts';
import { isUuid } from './ids.ts';
import { configFromEnvironment, serve } from './main.ts';
import { createOrchestrator } from './orchestrators/orchestrators.ts';
import { sandboxPay } from './sandbox/pay.ts';

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
  destination create --account <id> --address <wallet>
                     (--chain-id <n> --token <tokenAddress> | --currency <id, e.g. USDC-sandbox>)
                     [--bind <clientId>]        register a payee destination (and bind it)
  sandbox pay <token> --wallet <n> --api-key <key> [--url <baseUrl>]
                                                pay a link on the sandbox chain with test wallet n
                                                (talks to the running server)

Options:
  --json    print one JSON object instead of text
  --help    show this help`;

class UsageError extends Error {}

type Values = {
  name?: string | undefined;
  account?: string | undefined;
  label?: string | undefined;
  key?: string | undefined;
  address?: string | undefined;
  'chain-id'?: string | undefined;
  token?: string | undefined;
  currency?: string | undefined;
  bind?: string | undefined;
  wallet?: string | undefined;
  'api-key'?: string | undefined;
  url?: string | undefined;
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
      address: { type: 'string' },
      'chain-id': { type: 'string' },
      token: { type: 'string' },
      currency: { type: 'string' },
      bind: { type: 'string' },
      wallet: { type: 'string' },
      'api-key': { type: 'string' },
      url: { type: 'string' },
      domain: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals.slice(0, 2).join(' ');
  if (values.help || command === '') {
    out(USAGE);
    return;
  }
  if (command === 'serve') return serve();

  const config = configFromEnvironment();
  if (command === 'sandbox pay') {
    // Over HTTP to the running server: the embedded database stays its own.
    const result = await sandboxPay({
      baseUrl: values.url ?? config.baseUrl,
      token: required(positionals[2], '<token>'),
      wallet: Number(required(values.wallet, '--wallet')),
      apiKey: required(values['api-key'] ?? undefined, '--api-key'),
    });
    print(values, out, result, [
      `Paid with wallet ${result.wallet}:`,
      ...result.transactions.map((hash) => `  ${hash}`),
    ]);
    return;
  }
  if (positionals.length > 2) throw new UsageError(`unexpected argument "${positionals[2]}"`);
  const database = await openDatabase(config);
  try {
    await migrateDatabase(database);
    if (command === 'migrate') {
      print(values, out, { migrated: true }, `Database is up to date (${database.kind}).`);
      return;
    }
    await runCommand(command, values, database, out, config);
  } finally {
    await database.close();
  }
}

async function runCommand(
  command: string,
  values: Values,
  database: DatabaseHandle,
  out: (line: string) => void,
  config: Config,
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
    case 'destination create': {
      const accountId = await existingAccount(db, required(values.account, '--account'));
      const chains = createChainRegistry(config);
      const currency = values.currency === undefined ? undefined : chains.currency(values.currency);
      if (values.currency !== undefined && (!currency || currency.network === 'fiat')) {
        throw new UsageError(`unknown currency ${values.currency}`);
      }
      const network = currency ? chains.network(currency.network) : undefined;
      const target = resolveTarget(chains, {
        walletAddress: required(values.address, '--address'),
        chainId:
          network?.chainId ?? Number(required(values['chain-id'], '--chain-id or --currency')),
        tokenAddress:
          currency === undefined
            ? required(values.token, '--token or --currency')
            : currency.type === 'ETH'
              ? NATIVE_TOKEN_ADDRESS
              : currency.address,
      });
      const destination = await activateDestination(db, systemClock, accountId, target);
      if (values.bind !== undefined)
        await bindDestination(db, systemClock, accountId, values.bind, destination);
      print(values, out, { destinationId: destination.destinationId }, [
        `Destination: ${destination.destinationId}`,
        ...(values.bind ? [`Bound to client ID ${values.bind}`] : []),
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
  const [row] = isUuid(id)
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
