import { useEffect, useState } from 'preact/hooks';
import { discoverWallets, type WalletChoice } from '../../web/eip6963.ts';
import type { DashboardConfig } from './config.ts';
import type { Session } from './session.ts';
import { findTronLinkWallet, signInWithTronLink } from './tron-sign-in.ts';
import { signInWithWallet } from './wallet-sign-in.ts';

/** The TronLink button's key among the EVM wallets' announcement ids. */
const TRON_LINK = 'tronlink';

/**
 * A button per browser wallet (EVM wallets through EIP-6963, and TronLink): signing in with
 * one signs a message in it, nothing more. While the wallet asks, the button says so.
 */
export function WalletSignIn(props: {
  readonly config: DashboardConfig;
  readonly busy: boolean;
  readonly attempt: (signIn: () => Promise<Session>) => Promise<void>;
}) {
  const [wallets, setWallets] = useState<readonly WalletChoice[] | null>(null);
  const [signing, setSigning] = useState<string | null>(null);
  useEffect(() => discoverWallets(setWallets), []);
  // TronLink injects itself before the page's scripts run: found once, at the first render.
  const [tronLink] = useState(findTronLinkWallet);

  const choose = (wallet: WalletChoice) => {
    const signIn = () => signInWithWallet(props.config, wallet, () => setSigning(wallet.id));
    void props.attempt(signIn).finally(() => setSigning(null));
  };
  const chooseTron = () => {
    if (tronLink === null) return;
    const signIn = () => signInWithTronLink(props.config, tronLink, () => setSigning(TRON_LINK));
    void props.attempt(signIn).finally(() => setSigning(null));
  };
  const label = (id: string, name: string) =>
    signing === id ? `Sign the message in ${name}…` : `Sign in with ${name}`;

  if (wallets === null) return <p class="notice">Looking for browser wallets…</p>;
  if (wallets.length === 0 && tronLink === null) {
    return (
      <p class="notice" data-field="no-wallet">
        No browser wallet found: install one to sign in with it, or use your e-mail.
      </p>
    );
  }
  return (
    <ul class="wallets">
      {wallets.map((wallet) => (
        <li key={wallet.id}>
          <button type="button" class="wallet" disabled={props.busy} onClick={() => choose(wallet)}>
            {wallet.icon !== null && <img src={wallet.icon} alt="" width={24} height={24} />}
            {label(wallet.id, wallet.name)}
          </button>
        </li>
      ))}
      {tronLink !== null && (
        <li key={TRON_LINK}>
          <button type="button" class="wallet" disabled={props.busy} onClick={chooseTron}>
            {label(TRON_LINK, 'TronLink')}
          </button>
        </li>
      )}
    </ul>
  );
}
