import { useEffect, useState } from 'preact/hooks';
import { call } from './api.ts';

/** A token as `GET /v2/currencies?network=` lists it, as far as the pages use it. */
export interface Token {
  readonly id: string;
  readonly symbol: string;
  readonly address: string;
  readonly network: string;
  readonly type: 'ERC20' | 'ETH' | 'TRC20' | 'ISO4217';
}

/** Each network's tokens, read once for the app's life (the list changes with a release). */
const read = new Map<string, Promise<readonly Token[]>>();

function tokensOf(apiBase: string, network: string): Promise<readonly Token[]> {
  const key = `${apiBase} ${network}`;
  let tokens = read.get(key);
  if (tokens === undefined) {
    tokens = call<Token[]>(apiBase, `/v2/currencies?network=${encodeURIComponent(network)}`).then(
      (listed) => listed.filter((token) => token.type !== 'ISO4217'),
    );
    // A failed read is tried again next time.
    tokens.catch(() => read.delete(key));
    read.set(key, tokens);
  }
  return tokens;
}

/**
 * The tokens a network's payments can be in, read once per network
 * (an empty list while reading, or when the API could not say).
 */
export function useTokens(apiBase: string, network: string): readonly Token[] {
  const [tokens, setTokens] = useState<readonly Token[]>([]);
  useEffect(() => {
    if (network === '') return;
    let current = true;
    setTokens([]);
    tokensOf(apiBase, network).then(
      (listed) => {
        if (current) setTokens(listed);
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [apiBase, network]);
  return tokens;
}
