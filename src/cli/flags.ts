import type { ParseArgsOptionDescriptor } from 'node:util';

// The CLI's flags, their values and wrong usage; node builtins only (see invocation.ts).

/** Wrong usage: printed as `payreq: <message>`, plus the usage text when `showUsage`. */
export class UsageError extends Error {
  readonly showUsage: boolean;
  constructor(message: string, options: { showUsage?: boolean } = {}) {
    super(message);
    this.name = 'UsageError';
    this.showUsage = options.showUsage ?? false;
  }
}

export const FLAGS = {
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

export type Flag = keyof typeof FLAGS;

/** Flag values, trimmed; a flag the command requires is present and non-empty. */
export type Values = {
  readonly [F in Flag]?: (typeof FLAGS)[F] extends { multiple: true }
    ? readonly string[]
    : (typeof FLAGS)[F]['type'] extends 'boolean'
      ? boolean
      : string;
};

/** A flag the command table requires: parseInvocation has already refused its absence. */
export function given(value: string | undefined): string {
  if (value === undefined) throw new Error('a required flag reached the command unchecked');
  return value;
}
