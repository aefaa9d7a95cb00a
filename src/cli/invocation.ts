import { type ParseArgsOptionDescriptor, parseArgs } from 'node:util';

/**
 * What `payreq` was asked to do, checked against the command table before anything else runs:
 * no config is read and no database opened until the command and its flags are known to be
 * well formed. This module imports only node builtins, so `payreq --help` and usage errors
 * answer at once, and even while a server holds the embedded database.
 */

/** Wrong usage: printed as `payreq: <message>`, plus the usage text when `showUsage`. */
export class UsageError extends Error {
  readonly showUsage: boolean;
  constructor(message: string, options: { showUsage?: boolean } = {}) {
    super(message);
    this.name = 'UsageError';
    this.showUsage = options.showUsage ?? false;
  }
}

const FLAGS = {
  name: { type: 'string' },
  account: { type: 'string' },
  label: { type: 'string' },
  key: { type: 'string' },
  address: { type: 'string' },
  'chain-id': { type: 'string' },
  chain: { type: 'string' },
  token: { type: 'string' },
  currency: { type: 'string' },
  bind: { type: 'string' },
  wallet: { type: 'string' },
  'api-key': { type: 'string' },
  url: { type: 'string' },
  domain: { type: 'string', multiple: true },
  id: { type: 'string' },
  orchestrator: { type: 'string' },
  'client-id': { type: 'string' },
  flow: { type: 'string' },
  bearer: { type: 'string' },
  bps: { type: 'string' },
  'usd-cap': { type: 'string' },
  'evm-recipient': { type: 'string' },
  'tron-recipient': { type: 'string' },
  safe: { type: 'string' },
  owners: { type: 'string' },
  threshold: { type: 'string' },
  fund: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Record<string, ParseArgsOptionDescriptor>;

type Flag = keyof typeof FLAGS;

/** Flag values, trimmed; a flag the command requires is present and non-empty. */
export type Values = {
  readonly [F in Flag]?: (typeof FLAGS)[F] extends { multiple: true }
    ? readonly string[]
    : (typeof FLAGS)[F]['type'] extends 'boolean'
      ? boolean
      : string;
};

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

function checkDestinationTarget(values: Values): void {
  const byCurrency = values.currency !== undefined;
  const byToken = values['chain-id'] !== undefined || values.token !== undefined;
  if (byCurrency && byToken) {
    throw new UsageError('give either --currency, or --chain-id with --token, not both');
  }
  if (!byCurrency && (values['chain-id'] === undefined || values.token === undefined)) {
    throw new UsageError('--chain-id and --token, or --currency, are required');
  }
  const chainId = values['chain-id'];
  if (chainId !== undefined && !/^[1-9]\d{0,15}$/.test(chainId)) {
    throw new UsageError(`--chain-id must be a positive integer (got "${chainId}")`);
  }
}

/**
 * A fee needs a recipient: said here in the flags' words. Every other rule of a fee config
 * (values, ranges, addresses, the client ID, one per pair) is the API's own, checked by its code.
 */
function checkFeeRecipient(values: Values): void {
  if (values['evm-recipient'] === undefined && values['tron-recipient'] === undefined) {
    throw new UsageError('--evm-recipient or --tron-recipient is required (or both)');
  }
}

/** A flag the command table requires: parseInvocation has already refused its absence. */
export function given(value: string | undefined): string {
  if (value === undefined) throw new Error('a required flag reached the command unchecked');
  return value;
}

function checkSandboxPay(values: Values): void {
  if ((values.chain === undefined) !== (values.token === undefined)) {
    throw new UsageError('--chain and --token go together (the chain and token to pay from)');
  }
  if (values.chain !== undefined && values.safe !== undefined) {
    throw new UsageError('--chain and --token pay from a test wallet, not with --safe');
  }
  const examples = { chain: 'a chain name such as SANDBOX_B', token: 'a token name such as USDT' };
  for (const flag of ['chain', 'token'] as const) {
    const value = values[flag];
    if (value !== undefined && !/^[A-Z][A-Z0-9_]{0,31}$/.test(value)) {
      throw new UsageError(`--${flag} must be ${examples[flag]}, in upper case (got "${value}")`);
    }
  }
  if (values.safe !== undefined) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(values.safe)) {
      throw new UsageError(`--safe must be the Safe's address (got "${values.safe}")`);
    }
    if (values.wallet !== undefined && !/^\d{1,3}(,\d{1,3})*$/.test(values.wallet)) {
      throw new UsageError(
        `--wallet must be test wallet numbers, comma-separated (got "${values.wallet}")`,
      );
    }
  } else if (values.wallet !== undefined && !/^\d{1,3}$/.test(values.wallet)) {
    throw new UsageError(`--wallet must be a test wallet number (got "${values.wallet}")`);
  }
  checkUrl(values);
}

function checkCreateSafe(values: Values): void {
  if (values.threshold !== undefined && !/^[1-9]\d{0,2}$/.test(values.threshold)) {
    throw new UsageError(`--threshold must be a positive integer (got "${values.threshold}")`);
  }
  if (values.fund !== undefined && !/^\d{1,12}(\.\d{1,6})?$/.test(values.fund)) {
    throw new UsageError(
      `--fund must be an amount of USDC, e.g. 100 or 12.5 (got "${values.fund}")`,
    );
  }
  if (values.wallet !== undefined && !/^\d{1,3}$/.test(values.wallet)) {
    throw new UsageError(`--wallet must be a test wallet number (got "${values.wallet}")`);
  }
  checkUrl(values);
}

function checkUrl(values: Values): void {
  if (values.url !== undefined && !/^https?:\/\/[^\s/]+/.test(values.url)) {
    throw new UsageError(`--url must be an http(s) base URL (got "${values.url}")`);
  }
}
