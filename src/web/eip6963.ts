/**
 * Finding the browser's EVM wallets (a payer's on the pay page, a merchant's on the
 * dashboard): every wallet that announces itself through EIP-6963 (several at once, each with
 * its own EIP-1193 provider), or, when none does, the one a browser wallet injects as
 * `window.ethereum`. A few lines of our own: the protocol is two events.
 */

interface Eip1193Provider {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
}

export interface WalletChoice {
  /** The announcement's uuid; `injected` for `window.ethereum`. */
  readonly id: string;
  readonly name: string;
  /** Reverse-DNS name (`io.metamask`): what telemetry reports as the wallet provider. */
  readonly rdns: string;
  /** A `data:image/…` URI, or null: a wallet's icon is never fetched from elsewhere. */
  readonly icon: string | null;
  readonly provider: Eip1193Provider;
}

interface Announcement {
  readonly info: { uuid: string; name: string; icon: string; rdns: string };
  readonly provider: Eip1193Provider;
}

function isAnnouncement(value: unknown): value is Announcement {
  const detail = value as Partial<Announcement> | null;
  const info = detail?.info;
  return (
    typeof info?.uuid === 'string' &&
    typeof info.name === 'string' &&
    typeof info.rdns === 'string' &&
    typeof detail?.provider?.request === 'function'
  );
}

const ICON = /^data:image\/(?:svg\+xml|png|webp|jpeg|gif)[;,]/;

/** How long to wait for announcements before offering `window.ethereum` instead. */
const LEGACY_AFTER_MS = 400;

/**
 * Calls `onChange` with every wallet found so far, now and whenever another announces itself;
 * the returned function stops listening.
 */
export function discoverWallets(onChange: (wallets: readonly WalletChoice[]) => void): () => void {
  const found = new Map<string, WalletChoice>();
  const announce = (event: Event) => {
    const detail = (event as CustomEvent<unknown>).detail;
    if (!isAnnouncement(detail)) return;
    const { info, provider } = detail;
    // A wallet announcing itself again (to another page part's request) changes nothing:
    // rendering again would replace the buttons under the payer's pointer.
    if (found.get(info.uuid)?.provider === provider) return;
    found.delete('injected');
    found.set(info.uuid, {
      id: info.uuid,
      name: info.name.slice(0, 60) || 'Wallet',
      rdns: info.rdns.slice(0, 100),
      icon: typeof info.icon === 'string' && ICON.test(info.icon) ? info.icon : null,
      provider,
    });
    onChange([...found.values()]);
  };
  window.addEventListener('eip6963:announceProvider', announce);
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  const legacy = setTimeout(() => {
    // Wallets that announced themselves are on the page already.
    if (found.size > 0) return;
    const injected = (window as { ethereum?: Eip1193Provider }).ethereum;
    if (typeof injected?.request === 'function') {
      found.set('injected', {
        id: 'injected',
        name: 'Browser wallet',
        rdns: 'injected',
        icon: null,
        provider: injected,
      });
    }
    onChange([...found.values()]);
  }, LEGACY_AFTER_MS);
  return () => {
    clearTimeout(legacy);
    window.removeEventListener('eip6963:announceProvider', announce);
  };
}
