#!/usr/bin/env node
import { enableCompileCache } from 'node:module';
import { UsageError } from './cli/flags.ts';
import { isSandboxCommand, parseInvocation } from './cli/invocation.ts';
import type { Output } from './cli/output.ts';
import { registerResolveHook } from './cli/resolve-hook.ts';
import { USAGE } from './cli/usage.ts';
import type { Config } from './config/config.ts';

/**
 * Operator CLI: `payreq <command>`. Works on the same DATA_DIR / DATABASE_URL as the server
 * (with the embedded database, only while the server is stopped). Secrets are printed once.
 *
 * Static imports stay with node builtins and two small modules (the invocation, the resolve
 * hook): the command and its flags are checked first, then each command imports what it needs
 * (drizzle, viem, fastify), so `--help` and usage errors answer in a blink and never touch the
 * database.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** Field names of domain errors (the API's), as the flags that set them. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  payeeDestinationId: '--bind',
  flow: '--flow',
  feeBearer: '--bearer',
  bps: '--bps',
  usdCap: '--usd-cap',
  evmRecipientAddress: '--evm-recipient',
  tronRecipientAddress: '--tron-recipient',
  clientId: '--client-id',
};

export async function runCli(
  argv: readonly string[],
  io: { readonly env: Env; readonly out: Output },
): Promise<void> {
  const invocation = parseInvocation(argv);
  if (invocation.kind === 'help') {
    io.out(USAGE);
    return;
  }
  const { command, values, args } = invocation;
  // Before anything heavy: a configuration mistake is answered without loading the app.
  const config = await loadConfig(io.env);
  if (command === 'serve') {
    const { serve } = await import('./main.ts');
    return serve();
  }
  if (isSandboxCommand(command)) {
    // Over HTTP to the running server: the embedded database stays its own.
    const { runSandboxCommand } = await import('./cli/sandbox-commands.ts');
    await runSandboxCommand(command, values, args, config.baseUrl, io.out);
    return;
  }
  if (config.databaseUrl === null) {
    // Nothing is open or printed yet: the command can start over in a process with the flag.
    const { reexecWithLiftoffOnly } = await import('./cli/liftoff.ts');
    reexecWithLiftoffOnly();
  }
  const { runDatabaseCommand } = await import('./cli/database-commands.ts');
  await runDatabaseCommand(command, values, config, io.out);
}

async function loadConfig(env: Env): Promise<Config> {
  const { ConfigError, parseConfig } = await import('./config/config.ts');
  try {
    return parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError)
      throw new UsageError(`invalid configuration: ${error.message}`);
    throw error;
  }
}

/** One line for the operator (plus the usage text for a wrong command); no stack traces. */
async function describe(error: unknown): Promise<string> {
  if (error instanceof UsageError) {
    return `payreq: ${error.message}${error.showUsage ? `\n\n${USAGE}` : ''}`;
  }
  const { AppError } = await import('./base/errors.ts');
  if (error instanceof AppError && error.errors) {
    const details = error.errors
      .map((e) => `${FLAG_OF_FIELD[e.field] ?? e.field} ${e.message}`)
      .join('; ');
    return `payreq: ${error.message}: ${details}`;
  }
  return `payreq: ${error instanceof Error ? error.message : String(error)}`;
}

if (import.meta.main) {
  // V8's compiled code and our type-stripped sources, kept on disk (in the temp folder) for
  // the next run: every module imported from here on skips stripping and parsing when unchanged.
  enableCompileCache();
  registerResolveHook();
  try {
    await runCli(process.argv.slice(2), {
      env: process.env,
      out: (line) => process.stdout.write(`${line}\n`),
    });
  } catch (error) {
    console.error(await describe(error));
    process.exitCode = 1;
  }
}
