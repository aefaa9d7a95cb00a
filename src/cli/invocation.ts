import { parseArgs } from 'node:util';
import {
  checkCreateSafe,
  checkDestinationTarget,
  checkFeeRecipient,
  checkSandboxPay,
  checkUrl,
} from './flag-checks.ts';
import { FLAGS, type Flag, UsageError, type Values } from './flags.ts';

/**
 * What `payreq` was asked to do, checked against the command table before anything else runs:
 * no config is read and no database opened until the command and its flags are known to be
 * well formed. This module and its flags (flags.ts, flag-checks.ts) import only node builtins, so `payreq --help` and usage errors
 * answer at once, and even while a server holds the embedded database.
 */

interface CommandSpec {
  /** Flags the command takes besides --help (and --json when `json`). */
  readonly flags: readonly Flag[];
  readonly required: readonly Flag[];
  /** Names of the positional arguments after the command words, all required. */
  readonly positionals: readonly string[];
  /** Rules between flags and on their shape. */
  readonly check?: (values: Values) => void;
}

const command = (
  flags: readonly Flag[],
  options: Partial<Omit<CommandSpec, 'flags'>> = {},
): CommandSpec => ({ flags, required: [], positionals: [], ...options });

const COMMANDS = {
  serve: command([]),
  migrate: command(['json']),
  'account create': command(['name', 'json'], { required: ['name'] }),
  'api-key create': command(['account', 'label', 'json'], { required: ['account'] }),
  'api-key revoke': command(['key', 'json'], { required: ['key'] }),
  'client-id create': command(['account', 'label', 'domain', 'bind', 'json'], {
    required: ['account'],
  }),
  'orchestrator create': command(['name', 'json'], { required: ['name'] }),
  'orchestrator list': command(['json']),
  'orchestrator rotate-key': command(['id', 'json'], { required: ['id'] }),
  'fee-config list': command(['orchestrator', 'client-id', 'json'], {
    required: ['orchestrator'],
  }),
  'fee-config create': command(
    [
      'orchestrator',
      'flow',
      'bearer',
      'bps',
      'usd-cap',
      'evm-recipient',
      'tron-recipient',
      'client-id',
      'json',
    ],
    { required: ['orchestrator', 'flow', 'bearer', 'bps'], check: checkFeeRecipient },
  ),
  'fee-config disable': command(['id', 'json'], { required: ['id'] }),
  'destination create': command(
    ['account', 'address', 'chain-id', 'token', 'currency', 'bind', 'json'],
    { required: ['account', 'address'], check: checkDestinationTarget },
  ),
  'payers reencrypt': command(['json']),
  'sandbox pay': command(['wallet', 'safe', 'api-key', 'url', 'chain', 'token', 'json'], {
    required: ['wallet', 'api-key'],
    positionals: ['<token>'],
    check: checkSandboxPay,
  }),
  'sandbox authorize': command(['wallet', 'api-key', 'url', 'json'], {
    required: ['wallet', 'api-key'],
    positionals: ['<payToken>'],
    check: checkUrl,
  }),
  'sandbox create-safe': command(['owners', 'threshold', 'fund', 'wallet', 'url', 'json'], {
    required: ['owners', 'threshold'],
    check: checkCreateSafe,
  }),
  'sandbox clock': command(['url', 'json'], { check: checkUrl }),
  'sandbox clock advance': command(['url', 'json'], {
    positionals: ['<duration>'],
    check: checkUrl,
  }),
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

/** The commands that talk to the running server's sandbox over HTTP, opening no database. */
export type SandboxCommand = Extract<CommandName, `sandbox ${string}`>;

export function isSandboxCommand(name: CommandName): name is SandboxCommand {
  return name.startsWith('sandbox ');
}

export type Invocation =
  | { readonly kind: 'help' }
  | {
      readonly kind: 'run';
      readonly command: CommandName;
      readonly values: Values;
      /** The positionals after the command words, in the order the command names them. */
      readonly args: readonly string[];
    };

export function parseInvocation(argv: readonly string[]): Invocation {
  // First pass, knowing every flag (so `--name create` reads as a value, not a command word),
  // to find the command; the second checks each token against that command's own flags.
  const { values, positionals, tokens } = parseArgs({
    args: [...argv],
    options: FLAGS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  if (values.help === true || positionals.length === 0) return { kind: 'help' };
  const name = findCommand(positionals);
  if (name === null) {
    throw new UsageError(`unknown command "${positionals.slice(0, 2).join(' ')}"`, {
      showUsage: true,
    });
  }
  const spec: CommandSpec = COMMANDS[name];
  const accepted = new Set<string>(['help', ...spec.flags]);
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (!accepted.has(token.name)) {
      throw new UsageError(`unknown option ${token.rawName} for "${name}" (see payreq --help)`);
    }
    const flag = FLAGS[token.name as Flag];
    if (flag.type === 'string') {
      // `--name --json`: a flag where the value should be is a forgotten value, not a name.
      if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-'))) {
        throw new UsageError(`${token.rawName} needs a value`);
      }
      if (!('multiple' in flag) && seen.has(token.name)) {
        throw new UsageError(`${token.rawName} is given more than once`);
      }
    } else if (token.value !== undefined) {
      throw new UsageError(`${token.rawName} takes no value`);
    }
    seen.add(token.name);
  }

  const words = name.split(' ').length;
  const args = positionals.slice(words);
  const extra = args[spec.positionals.length];
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}" for "${name}"`);
  const missing = spec.positionals[args.length];
  if (missing !== undefined) throw new UsageError(`${missing} is required`);

  const trimmed = trimValues(values as Record<string, unknown>);
  for (const flag of spec.required) {
    if (trimmed[flag] === undefined) throw new UsageError(`--${flag} is required`);
  }
  spec.check?.(trimmed);
  return { kind: 'run', command: name, values: trimmed, args: args.map((arg) => arg.trim()) };
}

function findCommand(positionals: readonly string[]): CommandName | null {
  // The longest match: `sandbox clock advance` before `sandbox clock`.
  for (const words of [3, 2, 1]) {
    const candidate = positionals.slice(0, words);
    const name = candidate.join(' ');
    if (Object.hasOwn(COMMANDS, name)) return name as CommandName;
  }
  return null;
}

/** Strings trimmed; blank ones dropped, so a required flag given as `--name ""` is missing. */
function trimValues(values: Record<string, unknown>): Values {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (typeof value === 'string') {
      if (value.trim() !== '') out[key] = value.trim();
    } else if (Array.isArray(value)) {
      out[key] = value.map((item) => String(item).trim());
    } else {
      out[key] = value;
    }
  }
  // The token checks above held every value to its flag's type.
  return out as Values;
}
