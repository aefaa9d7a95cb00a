import { useEffect, useState } from 'preact/hooks';
import { discoverWallets, type WalletChoice } from '../../web/eip6963.ts';

/** The browser's EVM wallets (EIP-6963); null while looking. */
function useWallets(): readonly WalletChoice[] | null {
  const [wallets, setWallets] = useState<readonly WalletChoice[] | null>(null);
  useEffect(() => discoverWallets(setWallets), []);
  return wallets;
}

/**
 * A button per browser wallet, each doing `act` with it (`<verb> with <wallet>`); `act` gets
 * the form the button is in, if any. Says so when the browser has no wallet.
 */
export function WalletButtons(props: {
  readonly verb: string;
  readonly busy: boolean;
  /** Why a wallet is needed, said when there is none. */
  readonly needed: string;
  readonly act: (wallet: WalletChoice, form: HTMLFormElement | null) => void;
}) {
  const wallets = useWallets();
  if (wallets === null) return <p class="notice">Looking for browser wallets…</p>;
  if (wallets.length === 0) {
    return (
      <p class="notice" data-field="no-wallet">
        No browser wallet found: {props.needed}
      </p>
    );
  }
  return (
    <ul class="wallets">
      {wallets.map((wallet) => (
        <li key={wallet.id}>
          <button
            type="button"
            class="wallet"
            disabled={props.busy}
            onClick={(event) => props.act(wallet, event.currentTarget.form)}
          >
            {props.verb} with {wallet.name}
          </button>
        </li>
      ))}
    </ul>
  );
}
