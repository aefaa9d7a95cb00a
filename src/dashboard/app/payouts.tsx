import { useState } from 'preact/hooks';
import { ApiError, call, messageOf } from './api.ts';
import { Problem, useChange } from './change.tsx';
import { type DashboardConfig, evmNetworks, type Token, tokensOf } from './config.ts';
import { focusOnMount } from './focus.ts';
import { type PayoutLine, readPayouts, refusalOf } from './payout-csv.ts';
import { RecurringPayouts } from './recurring-payouts.tsx';
import { type Made, madeTitle, SendPayouts } from './send-payouts.tsx';
import { Table } from './table.tsx';
import type { Call } from './wallet-send.ts';

/** A batch's answer: its approvals, then the one transaction that pays every request. */
interface BatchAnswer {
  readonly ERC20ApprovalTransactions: readonly Call[];
  readonly batchPaymentTransaction: Call;
  readonly requestIds: readonly string[];
}

/** The line each `requests[i]` of the API's errors names, with its problem. */
function linesOfErrors(error: unknown, payouts: readonly PayoutLine[]): PayoutLine[] | null {
  if (!(error instanceof ApiError) || error.fields.length === 0) return null;
  const named = new Map<number, string[]>();
  for (const { field, message } of error.fields) {
    const index = /^requests\[(\d+)\]/.exec(field)?.[1];
    const payout = index === undefined ? payouts[0] : payouts[Number(index)];
    if (!payout) continue;
    const problem = /^[a-z]/.test(message)
      ? `${field.replace(/^requests\[\d+\]\./, '')} ${message}`
      : message;
    named.set(payout.line, [...(named.get(payout.line) ?? []), problem]);
  }
  return payouts.map((payout) => ({ ...payout, problems: named.get(payout.line) ?? [] }));
}

/** Makes the payouts (one: `POST /v2/payouts`; several: one batch), nothing when one fails. */
async function makePayouts(
  apiBase: string,
  payouts: readonly PayoutLine[],
  tokens: readonly Token[],
): Promise<{ requestIds: string[]; calls: Call[] }> {
  const currency = (symbol: string) => tokens.find((t) => t.symbol === symbol)?.id ?? symbol;
  const requests = payouts.map((payout) => ({
    payee: payout.payee,
    amount: payout.amount,
    invoiceCurrency: currency(payout.token),
    paymentCurrency: currency(payout.token),
  }));
  const [only] = requests;
  if (requests.length === 1 && only) {
    const made = await call<{ requestId: string; transactions: Call[] }>(apiBase, '/v2/payouts', {
      method: 'POST',
      body: only,
    });
    return { requestIds: [made.requestId], calls: made.transactions };
  }
  const batch = await call<BatchAnswer>(apiBase, '/v2/payouts/batch', {
    method: 'POST',
    body: { requests },
  });
  return {
    requestIds: [...batch.requestIds],
    calls: [...batch.ERC20ApprovalTransactions, batch.batchPaymentTransaction],
  };
}

/**
 * Paying out: to one recipient or many at once (pasted, or read from a CSV file, every line
 * checked before anything is made), the transactions then sent from the merchant's wallet;
 * and the account's recurring payouts, with their next date, to cancel or unpause.
 */
export function Payouts(props: {
  readonly config: DashboardConfig;
  readonly ended: (error: unknown) => boolean;
}) {
  const { config, ended } = props;
  const networks = evmNetworks(config);
  const [network, setNetwork] = useState(networks[0]?.id ?? '');
  const [text, setText] = useState('');
  const [checked, setChecked] = useState<readonly PayoutLine[] | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [made, setMade] = useState<Made | null>(null);
  const tokens = tokensOf(config, network);
  const { busy, problem, change } = useChange(() => undefined, ended);

  const submit = () => {
    const chosen = networks.find((n) => n.id === network);
    if (!chosen) return;
    const payouts = readPayouts(text, tokens);
    setChecked(payouts);
    setMade(null);
    const refused = refusalOf(payouts);
    setRefusal(refused);
    if (refused !== null) return;
    void change(async () => {
      try {
        const answer = await makePayouts(config.apiBase, payouts, tokens);
        setMade({ network: chosen, ...answer });
        setChecked(null);
        setText('');
      } catch (error) {
        // The API names the bad request by its index: shown on its line, nothing made.
        const lines = linesOfErrors(error, payouts);
        if (lines === null) throw error;
        setChecked(lines);
        setRefusal(refusalOf(lines) ?? messageOf(error));
      }
    });
  };

  const bad = checked?.filter((line) => line.problems.length > 0) ?? [];
  return (
    <main class="card" data-screen="payouts">
      <h1>Payouts</h1>
      <section aria-labelledby="pay-out">
        <h2 id="pay-out">Pay out</h2>
        <p class="notice">
          One payout per line: the payee's wallet, the amount, the token. Several lines are paid in
          one transaction; nothing is made while a line is wrong.
        </p>
        <Problem problem={problem} />
        <form
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
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
            Payouts (payee, amount, token)
            <textarea
              name="payouts"
              rows={5}
              value={text}
              onInput={(event) => setText(event.currentTarget.value)}
              placeholder={'0x70997970C51812dc3A010C7d01b50e0d17dc79C8,12.5,USDC'}
            />
          </label>
          <label>
            Or read a CSV file
            <input
              type="file"
              accept=".csv,text/csv,text/plain"
              onChange={(event) => {
                const file = event.currentTarget.files?.[0];
                if (file) void file.text().then(setText);
              }}
            />
          </label>
          <button type="submit" disabled={busy || tokens.length === 0}>
            Check and create
          </button>
        </form>
        {refusal !== null && (
          <p
            class="problem"
            role="alert"
            data-field="payouts-refused"
            tabIndex={-1}
            ref={focusOnMount}
          >
            {refusal}
          </p>
        )}
        {bad.length > 0 && (
          <Table
            caption="Lines to fix"
            columns={['Line', 'Payee', 'Amount', 'Token', 'Problem']}
            rows={bad.map((line) => ({
              key: String(line.line),
              id: String(line.line),
              cells: [
                String(line.line),
                <code key="payee">{line.payee || '—'}</code>,
                line.amount || '—',
                line.token || '—',
                line.problems.join('; '),
              ],
            }))}
          />
        )}
        {made !== null && (
          <SendPayouts
            config={config}
            made={made}
            title={madeTitle(made)}
            sentText="Sent. payreq marks each payout paid as it sees the payment on chain."
          />
        )}
      </section>
      <RecurringPayouts config={config} ended={ended} />
    </main>
  );
}
