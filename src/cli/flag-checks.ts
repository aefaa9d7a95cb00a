import { UsageError, type Values } from './flags.ts';

/** Rules between a command's flags and on their shape, in the flags' words (invocation.ts). */

export function checkDestinationTarget(values: Values): void {
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
export function checkFeeRecipient(values: Values): void {
  if (values['evm-recipient'] === undefined && values['tron-recipient'] === undefined) {
    throw new UsageError('--evm-recipient or --tron-recipient is required (or both)');
  }
}

export function checkSandboxPay(values: Values): void {
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

export function checkCreateSafe(values: Values): void {
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

export function checkUrl(values: Values): void {
  if (values.url !== undefined && !/^https?:\/\/[^\s/]+/.test(values.url)) {
    throw new UsageError(`--url must be an http(s) base URL (got "${values.url}")`);
  }
}
