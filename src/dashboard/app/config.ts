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
