/**
 * What the server tells the page (a `<meta name="payreq-config">` in the HTML shell): where
 * the API is, the pay page's own client ID, and the networks' facts the page shows and gives
 * to wallets. Nothing in it is secret.
 */
export interface NetworkFacts {
  readonly name: string;
  readonly chainId: number;
  readonly kind: 'evm' | 'tron';
  readonly native: { readonly name: string; readonly symbol: string; readonly decimals: number };
  /** `{txHash}` stands for the transaction; null where the network has no explorer. */
  readonly explorerTxUrl: string | null;
  /** Given only where wallets cannot know the chain (the sandbox). */
  readonly rpcUrl: string | null;
  /** The network's name in an intent's `chain` (`BASE`); null where intents name none. */
  readonly intentChain: string | null;
}

export interface PageConfig {
  readonly apiBase: string;
  readonly clientId: string;
  readonly networks: Readonly<Record<string, NetworkFacts>>;
  /** Only on a link intent's page: the auth API, and the tokens a destination may take. */
  readonly intent?: {
    readonly authBase: string;
    /** Per EVM network id. */
    readonly currencies: Readonly<
      Record<string, readonly { readonly symbol: string; readonly address: string }[]>
    >;
  };
}

export function readConfig(): PageConfig {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="payreq-config"]');
  return JSON.parse(meta?.content ?? '{}') as PageConfig;
}
