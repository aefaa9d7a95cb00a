import type { NetworkFacts } from '../config.ts';
import type { PayContext } from '../context.ts';
import { h } from '../dom.ts';
import { shortAddress } from '../format.ts';
import { receiptOfCompleted, receiptScreen } from '../receipt.ts';
import { stateScreen } from '../screens.ts';
import { forgetSent } from '../sent.ts';
import { transferScreen } from './screens.ts';

/**
 * After the bridge call: the transfer's progress, read from the link until it ends. Paid: the
 * receipt. Failed or refunded (the link's `bridgeTransfers` say so): in plain words, and the
 * link is payable again. A service briefly unreachable is waited out.
 */

const FOLLOW_EVERY_MS = 2_000;

function sentOn(network: NetworkFacts, hash: string): HTMLElement {
  const href = network.explorerTxUrl?.replaceAll('{txHash}', hash) ?? null;
  const label = `Sent on ${network.name}: transaction ${shortAddress(hash)}`;
  return h(
    'p',
    { class: 'transactions' },
    href
      ? h('a', { href, rel: 'noopener noreferrer', target: '_blank' }, label)
      : h('code', { title: hash, 'data-field': 'source-tx' }, label),
  );
}

export async function followTransfer(
  context: PayContext,
  sent: { readonly hash: string; readonly network: NetworkFacts },
): Promise<void> {
  const again = () => context.reload();
  context.show(transferScreen('bridging', sentOn(sent.network, sent.hash), again));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_EVERY_MS));
    const state = await context.api.link(context.token);
    if (state.kind === 'completed') {
      // The receipt lists the payment on the link's network (the bridge's delivery).
      context.show(receiptScreen(context.config, receiptOfCompleted(state.completed, [])));
      return;
    }
    if (state.kind === 'invalidated' || state.kind === 'blocked' || state.kind === 'not_found') {
      context.show(stateScreen(state.kind));
      return;
    }
    if (state.kind !== 'payable' || state.display.paymentType === 'multicall') continue;
    const hash = sent.hash.toLowerCase();
    const transfer = state.display.bridgeTransfers?.find((t) => t.txHash.toLowerCase() === hash);
    if (transfer?.status === 'failed' || transfer?.status === 'refunded') {
      forgetSent(context.token);
      context.show(transferScreen(transfer.status, sentOn(sent.network, sent.hash), again));
      return;
    }
  }
}
