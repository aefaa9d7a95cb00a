import { discoverWallets, type WalletChoice } from '../../../web/eip6963.ts';
import { ApiError, PayerRefused } from '../answer.ts';
import type { PayContext } from '../context.ts';
import { payFromAnotherChain } from '../crosschain/pay.ts';
import { crossChainSection, multicallCrossChain, offersCrossChain } from '../crosschain/section.ts';
import { h } from '../dom.ts';
import { refusedScreen } from '../refused.ts';
import { payWithEvm } from './evm.ts';
import { NO_WALLET } from './offer.ts';
import { explain } from './problems.ts';
import { safeSection } from './safe-section.ts';
import { findTronWallet, payWithTron } from './tron.ts';

/**
 * The wallet chunk, loaded after the summary shows: offers the payer's wallets in the
 * summary's slot and runs a payment with the one chosen. Any failure returns to the summary
 * with the reason in words; the payer can try again, with the same wallet or another.
 */

/** The link changed under the payer (paid, expired, withdrawn): the page shows its state. */
const LINK_STATES = new Set([403, 404, 409, 423]);

/** `pay` returns what it sent for the page to follow, or null once the page shows what is next. */
async function attempt(context: PayContext, pay: () => Promise<string[] | null>): Promise<void> {
  try {
    const sent = await pay();
    if (sent !== null) context.follow(sent);
  } catch (error) {
    // The wallet itself was refused (allowlist, screening): say which and why, plainly.
    if (error instanceof PayerRefused) {
      context.show(refusedScreen(error.refusal, error.wallet, () => context.reload()));
      return;
    }
    // A payout refused to this wallet is about the wallet, not the link: say so and stay.
    const aboutWallet = error instanceof ApiError && error.code === 'payout_wallet_mismatch';
    if (error instanceof ApiError && LINK_STATES.has(error.status) && !aboutWallet)
      return context.reload();
    const words = { network: context.network.name, native: context.network.native.symbol };
    context.retry(
      error instanceof ApiError
        ? `The payment service answered: ${error.message}`
        : explain(error, words),
    );
  }
}

function walletButton(name: string, icon: string | null, id: string, onClick: () => void) {
  const button = h(
    'button',
    { class: 'button wallet', type: 'button', 'data-wallet': id },
    icon ? h('img', { src: icon, alt: '', width: '24', height: '24' }) : null,
    `Pay with ${name}`,
  );
  button.addEventListener('click', onClick, { once: true });
  return button;
}

export function mountWallets(context: PayContext, slot: HTMLElement): void {
  if (context.network.kind === 'tron') {
    const tron = findTronWallet();
    slot.replaceChildren(
      tron
        ? walletButton(
            'TronLink',
            null,
            'tronlink',
            () => void attempt(context, () => payWithTron(context, tron)),
          )
        : h(
            'p',
            { class: 'muted' },
            'No Tron wallet found in this browser. Install TronLink, or open this page in its browser.',
          ),
    );
    return;
  }
  let stop = () => {};
  // Any link may be paid from a Safe; a payout only from its creator's, when that is one.
  const creator = context.display.payout === true ? context.display.creatorWalletAddress : null;
  const safe =
    context.display.payout === true && !creator
      ? null
      : safeSection(context, {
          stop: () => stop(),
          run: (pay) => void attempt(context, pay),
          ...(creator && { only: creator }),
        });
  const crossChain = offersCrossChain(context);
  const multicall = multicallCrossChain(context);
  // A multicall's cross-chain code is its own chunk: most links never load it.
  const payMulticall = (wallet: WalletChoice) => {
    stop();
    void attempt(context, async () =>
      (await import('../crosschain/multicall.ts')).payMulticallFromAnotherChain(context, wallet),
    );
  };
  stop = discoverWallets((wallets: readonly WalletChoice[]) => {
    if (!slot.isConnected) return stop();
    slot.replaceChildren(
      ...(wallets.length > 0
        ? wallets.map((wallet) =>
            walletButton(wallet.name, wallet.icon, wallet.rdns, () => {
              if (multicall === 'only') return payMulticall(wallet);
              stop();
              void attempt(context, () => payWithEvm(context, wallet));
            }),
          )
        : [h('p', { class: 'muted' }, NO_WALLET)]),
    );
    if (safe && wallets.length > 0 && multicall !== 'only') slot.append(safe.element(wallets));
    if (crossChain && wallets.length > 0) {
      slot.append(
        crossChainSection(wallets, (wallet) => {
          stop();
          void attempt(context, () => payFromAnotherChain(context, wallet));
        }),
      );
    }
    if (multicall === 'also' && wallets.length > 0) {
      slot.append(crossChainSection(wallets, payMulticall));
    }
  });
}
