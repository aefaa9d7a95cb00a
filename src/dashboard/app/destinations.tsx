import { useCallback, useEffect, useState } from 'preact/hooks';
import type { WalletChoice } from '../../web/eip6963.ts';
import { call } from './api.ts';
import { Problem, useChange } from './change.tsx';
import { type DashboardConfig, evmNetworks, type Network, symbolOf, tokensOf } from './config.ts';
import { signDestination } from './destination-signing.ts';
import { focusOnMount } from './focus.ts';
import { formatTime } from './format.ts';
import { ListStatus } from './list-status.tsx';
import { type Listed, readList } from './listed.ts';
import { Table } from './table.tsx';
import { WalletButtons } from './wallet-choice.tsx';

/** A destination as `GET /v2/dashboard/destinations` lists it. */
export interface Destination {
  readonly id: string;
  readonly destinationId: string;
  readonly walletAddress: string;
  readonly tokenAddress: string;
  readonly chainId: number;
  readonly network: string;
  readonly active: boolean;
  readonly createdAt: string;
}

/** The account's destinations, newest first (the first page: an account has a handful). */
export function readDestinations(apiBase: string, active?: boolean): Promise<Destination[]> {
  const query = active === undefined ? 'limit=100' : `limit=100&active=${active}`;
  return call<{ destinations: Destination[] }>(apiBase, `/v2/dashboard/destinations?${query}`).then(
    (answer) => answer.destinations,
  );
}

/**
 * Where the account is paid: a wallet, a network and a token. Adding one, or removing it, is
 * signed in that wallet (EIP-712), so a stolen session alone can never redirect payments.
 * EVM networks here; a Tron destination is added through the API (TIP-712 in TronLink).
 */
export function Destinations(props: {
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
}) {
  const { config, ended } = props;
  const networks = evmNetworks(config);
  const [listed, setListed] = useState<Listed<Destination>>({ kind: 'loading' });
  const [network, setNetwork] = useState(networks[0]?.id ?? '');
  const [removing, setRemoving] = useState<string | null>(null);
  /** What the last addition did, said once it is done. */
  const [added, setAdded] = useState<string | null>(null);
  const tokens = tokensOf(config, network);

  const load = useCallback(() => {
    readList(readDestinations(config.apiBase), setListed, ended);
  }, [config, ended]);
  useEffect(load, [load]);
  const { busy, problem, change } = useChange(() => {
    setRemoving(null);
    load();
  }, ended);

  const networkOf = (id: string): Network | undefined => networks.find((n) => n.id === id);
  const add = (wallet: WalletChoice, form: HTMLFormElement) => {
    const chosen = networkOf(network);
    const tokenAddress = String(new FormData(form).get('token') ?? '');
    if (!chosen || tokenAddress === '') return;
    void change(async () => {
      const body = await signDestination(config.apiBase, wallet, {
        action: 'add',
        network: chosen,
        tokenAddress,
      });
      const made = await call<Destination>(config.apiBase, '/v2/payee-destination', {
        method: 'POST',
        body,
      });
      // A wallet has one active destination in an account: a new one replaces the other.
      const replaced =
        listed.kind === 'listed'
          ? listed.items.find(
              (d) =>
                d.active &&
                d.destinationId !== made.destinationId &&
                d.walletAddress.toLowerCase() === made.walletAddress.toLowerCase(),
            )
          : undefined;
      const what = (d: Destination) =>
        `${symbolOf(config, d.network, d.tokenAddress)} on ${networkOf(d.network)?.name ?? d.network}`;
      setAdded(
        replaced === undefined
          ? `Added: ${what(made)}.`
          : `Added: ${what(made)}. It replaces this wallet's destination for ${what(replaced)}.`,
      );
    });
  };
  const remove = (wallet: WalletChoice, destination: Destination) => {
    const chosen = networkOf(destination.network);
    if (!chosen) return;
    void change(async () => {
      setAdded(null);
      const body = await signDestination(config.apiBase, wallet, {
        action: 'deactivate',
        network: chosen,
        tokenAddress: destination.tokenAddress,
        walletAddress: destination.walletAddress,
      });
      const path = `/v2/payee-destination/${encodeURIComponent(destination.destinationId)}`;
      await call(config.apiBase, path, { method: 'DELETE', body });
    });
  };

  return (
    <main class="card" data-screen="destinations">
      <h1>Destinations</h1>
      <p class="notice">
        Where payments to the account go. The wallet signs each change, so adding or removing a
        destination needs that wallet in this browser. A wallet has one destination: adding another
        for it (another token or network) replaces the one it has.
      </p>
      <Problem problem={problem} />
      {added !== null && (
        <p class="notice" role="status" data-field="destination-added">
          {added}
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
        }}
      >
        <div class="pair">
          <label>
            Network
            <select
              name="network"
              value={network}
              onChange={(event) => setNetwork(event.currentTarget.value)}
            >
              {networks.map((n) => (
                <option key={n.id} value={n.id}>
                  {n.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Token
            <select name="token" required>
              {tokens.map((token) => (
                <option key={token.id} value={token.address}>
                  {token.symbol}
                </option>
              ))}
            </select>
          </label>
        </div>
        <WalletButtons
          verb="Add and sign"
          busy={busy}
          needed="the destination's wallet signs each change."
          act={(wallet, form) => {
            if (form) add(wallet, form);
          }}
        />
      </form>
      <ListStatus
        listed={listed}
        loading="Loading the destinations…"
        empty="No destinations yet."
      />
      {listed.kind === 'listed' && listed.items.length > 0 && (
        <Table
          caption="Destinations"
          columns={['Wallet', 'Network', 'Token', 'Added', 'Status']}
          rows={listed.items.map((destination) => ({
            key: destination.id,
            id: destination.destinationId,
            cells: [
              <code key="wallet">{destination.walletAddress}</code>,
              networkOf(destination.network)?.name ?? destination.network,
              symbolOf(config, destination.network, destination.tokenAddress),
              formatTime(destination.createdAt),
              !destination.active ? (
                'Removed'
              ) : removing === destination.id ? (
                <span class="confirm" key="remove">
                  Payments stop going here.{' '}
                  <WalletButtons
                    verb="Remove and sign"
                    busy={busy}
                    needed="the destination's wallet signs each change."
                    act={(wallet) => remove(wallet, destination)}
                  />
                  <button
                    type="button"
                    class="quiet"
                    ref={focusOnMount}
                    onClick={() => setRemoving(null)}
                  >
                    Keep
                  </button>
                </span>
              ) : (
                <button
                  type="button"
                  class="quiet"
                  key="remove"
                  onClick={() => setRemoving(destination.id)}
                >
                  Remove
                </button>
              ),
            ],
          }))}
        />
      )}
    </main>
  );
}
