import { useState } from 'preact/hooks';
import type { WalletChoice } from '../../web/eip6963.ts';
import { messageOf } from './api.ts';
import { Problem } from './change.tsx';
import type { DashboardConfig, Network } from './config.ts';
import { ExplorerLink } from './explorer-link.tsx';
import { focusOnMount } from './focus.ts';
import { WalletButtons } from './wallet-choice.tsx';
import { type Call, sendFromWallet } from './wallet-send.ts';

/** What a payout answered: the transactions that pay it, to send from the merchant's wallet. */
export interface Made {
  readonly network: Network;
  readonly requestIds: readonly string[];
  readonly calls: readonly Call[];
}

/** The transactions of payouts just made, sent from a wallet the merchant chooses. */
export function SendPayouts(props: {
  readonly config: DashboardConfig;
  readonly made: Made;
  /** What was made and what to send, as the section's heading. */
  readonly title: string;
  /** What is said once every transaction is mined. */
  readonly sentText: string;
}) {
  const { made } = props;
  const [sent, setSent] = useState<readonly string[]>([]);
  const [state, setState] = useState<'ready' | 'sending' | 'sent'>('ready');
  const [problem, setProblem] = useState<string | null>(null);
  const send = (wallet: WalletChoice) => {
    setState('sending');
    setProblem(null);
    setSent([]);
    sendFromWallet(wallet, made.network, made.calls, (hash) =>
      setSent((hashes) => [...hashes, hash]),
    ).then(
      () => setState('sent'),
      (error: unknown) => {
        setState('ready');
        setProblem(messageOf(error));
      },
    );
  };
  return (
    <section class="secret" aria-labelledby="made-payouts" aria-live="polite" data-field="made">
      <h3 id="made-payouts" tabIndex={-1} ref={focusOnMount}>
        {props.title}
      </h3>
      <Problem problem={problem} />
      {state === 'sent' ? (
        <p role="status" data-field="payouts-sent">
          {props.sentText}
        </p>
      ) : (
        <WalletButtons
          verb={`Send ${made.calls.length === 1 ? '1 transaction' : `${made.calls.length} transactions`}`}
          busy={state === 'sending'}
          needed="the payouts are sent from your wallet."
          act={send}
        />
      )}
      {sent.length > 0 && (
        <ol>
          {sent.map((hash) => (
            <li key={hash}>
              <ExplorerLink config={props.config} network={made.network.id} txHash={hash} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The heading of payouts just made: how many, and what to send. */
export function madeTitle(made: Made): string {
  const count = made.requestIds.length;
  const calls = made.calls.length === 1 ? 'transaction' : `${made.calls.length} transactions`;
  return count === 1
    ? `1 payout made: send its ${calls}`
    : `${count} payouts made: send their ${calls}`;
}
