import { useState } from 'preact/hooks';
import { call } from './api.ts';
import { Problem, useChange } from './change.tsx';
import { type DashboardConfig, evmNetworks, tokensOf } from './config.ts';
import { goTo, hrefOf } from './router.ts';

/**
 * A payout link (`POST /v2/secure-payments/payouts`): a hosted page where the account pays one
 * recipient, from the one wallet it names. Made here, paid there, listed with the other links.
 */
export function PayoutLinkForm(props: {
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
}) {
  const { config, ended } = props;
  const networks = evmNetworks(config);
  const [network, setNetwork] = useState(networks[0]?.id ?? '');
  const tokens = tokensOf(config, network);
  const { busy, problem, change } = useChange(() => undefined, ended);

  const create = (form: HTMLFormElement) => {
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const reference = text('reference');
    void change(async () => {
      const made = await call<{ token: string }>(config.apiBase, '/v2/secure-payments/payouts', {
        method: 'POST',
        body: {
          recipient: text('recipient'),
          creatorWalletAddress: text('creator'),
          network,
          currency: text('currency'),
          amount: text('amount'),
          ...(reference !== '' && { reference }),
        },
      });
      goTo(hrefOf(config.basePath, `links/${made.token}`));
    });
  };

  return (
    <section aria-labelledby="new-payout-link">
      <h2 id="new-payout-link">Pay someone through a link</h2>
      <p class="notice">
        A page where you pay one recipient from your wallet: open it, connect that wallet, pay.
      </p>
      <Problem problem={problem} />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create(event.currentTarget);
        }}
      >
        <div class="pair">
          <label>
            Network of the payout
            <select value={network} onChange={(event) => setNetwork(event.currentTarget.value)}>
              {networks.map((n) => (
                <option key={n.id} value={n.id}>
                  {n.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Token of the payout
            <select name="currency">
              {tokens.map((token) => (
                <option key={token.id} value={token.id}>
                  {token.symbol}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div class="pair">
          <label>
            Amount to pay
            <input name="amount" required inputMode="decimal" placeholder="250" />
          </label>
          <label>
            Reference of the payout (optional)
            <input name="reference" maxLength={255} placeholder="invoice-88" />
          </label>
        </div>
        <div class="pair">
          <label>
            Recipient's wallet
            <input name="recipient" required placeholder="0x…" />
          </label>
          <label>
            Paid from (your wallet)
            <input name="creator" required placeholder="0x…" />
          </label>
        </div>
        <button type="submit" disabled={busy}>
          Create payout link
        </button>
      </form>
    </section>
  );
}
