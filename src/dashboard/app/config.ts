/**
 * What the server tells the dashboard (a `<meta name="payreq-config">` in the HTML shell,
 * src/dashboard/shell.ts): its own path, and where the API and the auth API are. Nothing in
 * it is secret.
 */
export interface DashboardConfig {
  /** '' at the root; the pages' paths follow it (`/dashboard/payments`). */
  readonly basePath: string;
  readonly apiBase: string;
  readonly authBase: string;
  /** Per network id, its explorer's page of a transaction (`{txHash}` stands for it), or null. */
  readonly explorers: Readonly<Record<string, string | null>>;
  /** The networks served: where destinations and links can be. */
  readonly networks: readonly Network[];
  /** The tokens destinations and payouts take, per network (src/dashboard/shell.ts). */
  readonly tokens: readonly Token[];
}

export interface Token {
  readonly id: string;
  readonly symbol: string;
  readonly address: string;
  readonly network: string;
}

/**
 * The EVM networks a merchant picks from, the sandbox first where it runs (a newcomer's test
 * wallets hold its tokens).
 */
export function evmNetworks(config: DashboardConfig): readonly Network[] {
  const evm = config.networks.filter((network) => network.kind === 'evm');
  return [...evm.filter((n) => n.id === 'sandbox'), ...evm.filter((n) => n.id !== 'sandbox')];
}

/** The tokens of `network`, as destinations and payouts take them. */
export function tokensOf(config: DashboardConfig, network: string): readonly Token[] {
  return config.tokens.filter((token) => token.network === network);
}

/**
 * A currency id as the merchant reads it: a token's symbol and network ("USDC on Base") for
 * one of the config's, else the id itself (a fiat code, a token of the wider list).
 */
export function currencyName(config: DashboardConfig, id: string): string {
  const wanted = id.toLowerCase();
  const token = config.tokens.find((t) => t.id.toLowerCase() === wanted);
  if (token === undefined) return id;
  const network = config.networks.find((n) => n.id === token.network)?.name ?? token.network;
  return `${token.symbol} on ${network}`;
}

/** A token's symbol on its network, or its address when it is none of the config's. */
export function symbolOf(config: DashboardConfig, network: string, address: string): string {
  const wanted = address.toLowerCase();
  return (
    tokensOf(config, network).find((token) => token.address.toLowerCase() === wanted)?.symbol ??
    address
  );
}

export interface Network {
  readonly id: string;
  readonly name: string;
  readonly chainId: number;
  readonly kind: 'evm' | 'tron';
}

export function readConfig(): DashboardConfig {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="payreq-config"]');
  return JSON.parse(meta?.content ?? '{}') as DashboardConfig;
}
