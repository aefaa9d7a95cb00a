import { eq } from 'drizzle-orm';
import { systemClock } from '../base/clock.ts';
import { isUuid } from '../base/ids.ts';
import type { Config } from '../config/config.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { migrateDatabase } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { accounts } from '../db/schema.ts';
import { CREDENTIAL_CACHE_MS, onCredentialsChanged } from '../http/credential-cache.ts';
import { given, UsageError, type Values } from './flags.ts';
import type { CommandName, SandboxCommand } from './invocation.ts';
import { type Output, print } from './output.ts';

/**
 * The commands that work on the database: loaded only once the invocation is known to be
 * well formed, since drizzle and the drivers take a while to import. Each command imports
 * its own domain modules when it runs: viem and the chain registry (which derives the sandbox
 * wallets from their mnemonic) only for the commands that check addresses.
 */

/**
 * PGlite's buffer cache for a command, which reads and writes a few pages: PGlite's start
 * zeroes the whole cache, and the data dir's 128MB took half a second of it.
 */
const SHARED_BUFFERS = '16MB';

export type DatabaseCommand = Exclude<CommandName, 'serve' | SandboxCommand>;

export async function runDatabaseCommand(
  command: DatabaseCommand,
  values: Values,
  config: Config,
  out: Output,
): Promise<void> {
  const database = await openDatabase({ ...config, pgliteSharedBuffers: SHARED_BUFFERS });
  let changed = false;
  const stop = onCredentialsChanged(() => {
    changed = true;
  });
  try {
    await migrateDatabase(database);
    await run(command, values, database.db, config, out, database.kind);
  } finally {
    stop();
    await database.close();
  }
  // A key revoked or a binding moved here reaches the servers sharing Redis at once.
  if (changed && config.redisUrl !== null) {
    const { announceCredentialChange } = await import('../auth/credential-broadcast.ts');
    await announceCredentialChange(config.redisUrl).catch((error: unknown) => {
      // To stderr: the command did what it was asked, and stdout may be read as JSON.
      process.stderr.write(
        `payreq: could not tell the servers through Redis (${error instanceof Error ? error.message : String(error)}); the change reaches them within ${CREDENTIAL_CACHE_MS / 1000} seconds\n`,
      );
    });
  }
}

async function run(
  command: DatabaseCommand,
  values: Values,
  db: DatabaseHandle['db'],
  config: Config,
  out: Output,
  kind: DatabaseHandle['kind'],
): Promise<void> {
  switch (command) {
    case 'migrate': {
      print(values, out, { migrated: true }, `Database is up to date (${kind}).`);
      return;
    }
    case 'account create': {
      const { createAccount } = await import('../auth/accounts.ts');
      const created = await createAccount(db, given(values.name));
      print(values, out, created, [
        `Account ${created.accountId} created.`,
        `API key (shown once, store it now): ${created.apiKey}`,
      ]);
      return;
    }
    case 'api-key create': {
      const { issueApiKey } = await import('../auth/api-keys.ts');
      const accountId = await existingAccount(db, given(values.account));
      const { apiKey } = await issueApiKey(db, accountId, values.label ?? null);
      print(values, out, { apiKey }, `API key (shown once, store it now): ${apiKey}`);
      return;
    }
    case 'api-key revoke': {
      const { revokeApiKeyByValue } = await import('../auth/api-keys.ts');
      const outcome = await revokeApiKeyByValue(db, systemClock, given(values.key));
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
      const { createClientId } = await import('../auth/client-ids.ts');
      const accountId = await existingAccount(db, given(values.account));
      const domains = values.domain ?? [];
      // One transaction: the destination is checked (active, this account's) before the
      // client ID is written, so a refused --bind leaves no client ID behind.
      const row = await createClientId(db, {
        accountId,
        label: values.label ?? (domains.length === 0 ? 'Backend' : (domains[0] ?? 'Client')),
        allowedDomains: domains,
        ...(values.bind !== undefined && { payeeDestinationId: values.bind }),
      });
      print(values, out, { clientId: row.clientId }, [
        `Client ID: ${row.clientId}`,
        row.allowedDomains.length === 0
          ? 'No allowed domains: a backend client ID, keep it secret like an API key.'
          : `Allowed origins: ${row.allowedDomains.join(', ')}`,
        ...(values.bind !== undefined ? [`Bound to destination ${values.bind}`] : []),
      ]);
      return;
    }
    case 'orchestrator create':
    case 'orchestrator list':
    case 'orchestrator rotate-key': {
      const { runOrchestratorCommand } = await import('./orchestrator-commands.ts');
      return runOrchestratorCommand(command, values, db, out);
    }
    case 'fee-config list':
    case 'fee-config create':
    case 'fee-config disable': {
      const { runFeeConfigCommand } = await import('./fee-config-commands.ts');
      return runFeeConfigCommand(command, values, db, out);
    }
    case 'payers reencrypt': {
      const [{ loadKeyRing }, { reencryptPersonalData }] = await Promise.all([
        import('../config/secret-key.ts'),
        import('../payer/reencrypt.ts'),
      ]);
      const keys = loadKeyRing(config);
      const outcome = await reencryptPersonalData(db, keys);
      print(values, out, { currentKeyId: keys.currentId, ...outcome }, [
        `Re-sealed ${outcome.resealed} personal record(s) under key ${keys.currentId}.`,
      ]);
      if (outcome.unreadable > 0) {
        // Not done: those rows still need their key; the run exits non-zero.
        throw new UsageError(
          `${outcome.unreadable} record(s) could not be opened, sealed under key id(s) ${outcome.unreadableKeyIds.join(', ')} that DATA_KEYS does not give: left as they are; add those keys to DATA_KEYS and run again`,
        );
      }
      return;
    }
    case 'destination create': {
      const [
        { createChainRegistry },
        { NATIVE_TOKEN_ADDRESS },
        { activateDestination, activeDestinationOf, bindDestination },
        { resolveTarget },
        { sandboxNetworks },
      ] = await Promise.all([
        import('../chains/registry.ts'),
        import('../destinations/destination-id.ts'),
        import('../destinations/destinations.ts'),
        import('../destinations/target.ts'),
        import('../sandbox/network.ts'),
      ]);
      const accountId = await existingAccount(db, given(values.account));
      const chains = createChainRegistry(config, sandboxNetworks(config));
      const currency = values.currency === undefined ? undefined : chains.currency(values.currency);
      if (values.currency !== undefined && (!currency || currency.network === 'fiat')) {
        throw new UsageError(`unknown currency ${values.currency}`);
      }
      const network = currency ? chains.network(currency.network) : undefined;
      const target = resolveTarget(chains, {
        walletAddress: given(values.address),
        chainId: network?.chainId ?? Number(given(values['chain-id'])),
        tokenAddress:
          currency === undefined
            ? given(values.token)
            : currency.type === 'ETH'
              ? NATIVE_TOKEN_ADDRESS
              : currency.address,
      });
      // A wallet has one active destination: say which one this replaces, if any.
      const before = await activeDestinationOf(db, accountId, target.id.walletAddress);
      const destination = await activateDestination(db, systemClock, accountId, target);
      const replaced =
        before !== null && before.destinationId !== destination.destinationId
          ? before.destinationId
          : null;
      if (values.bind !== undefined)
        await bindDestination(db, systemClock, accountId, values.bind, destination);
      print(
        values,
        out,
        { destinationId: destination.destinationId, ...(replaced && { replaced }) },
        [
          `Destination: ${destination.destinationId}`,
          ...(replaced
            ? [
                `Replaces ${replaced}, now inactive: a wallet has one active destination. Client IDs bound to it follow only to a destination at least as strict; see README.`,
              ]
            : []),
          ...(values.bind ? [`Bound to client ID ${values.bind}`] : []),
        ],
      );
      return;
    }
  }
}

async function existingAccount(db: DatabaseHandle['db'], id: string): Promise<string> {
  const [row] = isUuid(id)
    ? await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, id))
    : [];
  if (!row) throw new UsageError(`no account ${id}`);
  return row.id;
}
