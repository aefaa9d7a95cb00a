import { readFileSync } from 'node:fs';

/** Request's token list file as released: what src/chains/token-list.ts is generated from. */
export interface TokenListFile {
  readonly version: { readonly major: number; readonly minor: number; readonly patch: number };
  readonly tokens: readonly TokenListEntry[];
}

interface TokenListEntry {
  readonly id: string;
  readonly name: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly address: string;
  readonly network: string;
  readonly type: string;
  readonly hash: string;
  readonly chainId: number;
}

export function readTokenListFile(): TokenListFile {
  const file = new URL('./reference/request-token-list-1.5.0.json', import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')) as TokenListFile;
}
