import { useEffect, useState } from 'preact/hooks';
import { discoverWallets, type WalletChoice } from '../../web/eip6963.ts';
import type { DashboardConfig } from './config.ts';
import type { Session } from './session.ts';
import { signInWithWallet } from './wallet-sign-in.ts';

/**
 * A button per browser wallet (EIP-6963): signing in with one signs a message in it, nothing
 * more. While the wallet asks, the button says so.
 */
export function WalletSignIn(props: {
  readonly config: DashboardConfig;
  readonly busy: boolean;
  readonly attempt: (signIn: () => Promise<Session>) => Promise<void>;
}) {
  const [wallets, setWallets] = useState<readonly WalletChoice[] | null>(null);
  const [signing, setSigning] = useState<string | null>(null);
  useEffect(() => discoverWallets(setWallets), []);

  const choose = (wallet: WalletChoice) => {
    const signIn = () => signInWithWallet(props.config, wallet, () => setSigning(wallet.id));
    void props.attempt(signIn).finally(() => setSigning(null));
  };

  if (wallets === null) return <p class="notice">Looking for browser wallets…</p>;
  if (wallets.length === 0) {
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
            {signing === wallet.id
              ? `Sign the message in ${wallet.name}…`
              : `Sign in with ${wallet.name}`}
          </button>
        </li>
      ))}
    </ul>
  );
}
