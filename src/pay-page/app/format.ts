import type { PageConfig } from './config.ts';

/** `USDC-base` → `USDC`: currency ids are `<SYMBOL>-<network>`, and symbols hold no dash. */
export function symbolOf(currencyId: string): string {
  return currencyId.split('-')[0] ?? currencyId;
}

export function networkName(config: PageConfig, network: string): string {
  return config.networks[network]?.name ?? network;
}

/** `0x7099…79C8`: enough to recognise an address, short enough for a phone. */
export function shortAddress(address: string): string {
  return address.length > 14 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}

/** Time left before `expiresAt`, in the two largest units: "6 days 23 hours", "4 minutes". */
export function timeLeft(expiresAt: string, now = Date.now()): string {
  const ms = Date.parse(expiresAt) - now;
  if (!(ms > 0)) return 'expired';
  const units: [string, number][] = [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ];
  const parts: string[] = [];
  let rest = ms;
  for (const [name, size] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 && parts.length < 2) parts.push(`${count} ${name}${count === 1 ? '' : 's'}`);
    else if (parts.length > 0) break;
  }
  return parts.length > 0 ? parts.join(' ') : 'less than a minute';
}

/** How long ago `at` was, in its largest unit: "4 minutes ago", "less than a minute ago". */
export function age(at: string, now = Date.now()): string {
  const ms = now - Date.parse(at);
  if (!(ms >= 60_000)) return 'less than a minute ago';
  const units: [string, number][] = [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ];
  for (const [name, size] of units) {
    const count = Math.floor(ms / size);
    if (count > 0) return `${count} ${name}${count === 1 ? '' : 's'} ago`;
  }
  return 'less than a minute ago';
}

export function explorerLink(config: PageConfig, network: string, txHash: string): string | null {
  return config.networks[network]?.explorerTxUrl?.replaceAll('{txHash}', txHash) ?? null;
}

/**
 * The exact sum of decimal strings ("12.5" + "0.000001" = "12.500001"), in integers scaled to
 * the longest fraction: amounts come from the server as decimal strings and never pass through
 * a float. Null when one is not a plain non-negative decimal.
 */
export function sumDecimals(amounts: readonly string[]): string | null {
  if (!amounts.every((a) => /^\d+(\.\d+)?$/.test(a))) return null;
  const scale = Math.max(0, ...amounts.map((a) => a.split('.')[1]?.length ?? 0));
  const units = amounts.reduce((total, a) => {
    const [whole = '0', fraction = ''] = a.split('.');
    return total + BigInt(whole + fraction.padEnd(scale, '0'));
  }, 0n);
  const digits = units.toString().padStart(scale + 1, '0');
  if (scale === 0) return digits;
  const fraction = digits.slice(-scale).replace(/0+$/, '');
  const whole = digits.slice(0, -scale);
  return fraction === '' ? whole : `${whole}.${fraction}`;
}
