/**
 * TronLink as the extension injects it: `window.tronLink` (which asks for the account) and the
 * TronWeb object it carries, also at `window.tronWeb`. Each app declares the part of TronWeb
 * it uses (`W`): the pay page builds and sends transactions, the dashboard signs a message.
 */

interface TronLinkLike<W> {
  /** TronLink answers `{code: 4001}` when refused, and nothing while it is locked. */
  request(args: {
    method: string;
  }): Promise<{ code?: number; message?: string } | string | null | undefined>;
  readonly tronWeb?: W | false;
}

export interface TronLink<W> {
  readonly tronLink: TronLinkLike<W> | null;
  /** Read when needed: TronLink fills it in once the account is shared. */
  tronWeb(): W | null;
}

/** TronLink in this browser, or null without it. */
export function findTronLink<W>(): TronLink<W> | null {
  const globals = window as { tronLink?: TronLinkLike<W>; tronWeb?: W };
  if (!globals.tronLink && !globals.tronWeb) return null;
  return {
    tronLink: globals.tronLink ?? null,
    tronWeb: () => globals.tronLink?.tronWeb || globals.tronWeb || null,
  };
}

/**
 * Asks TronLink for its account: the shared account's TronWeb and base58 address, or null
 * when it shared none (refused, or locked). `refused` is true for a refusal.
 */
export async function requestTronAccount<
  W extends { readonly defaultAddress: { readonly base58: string | false } },
>(wallet: TronLink<W>): Promise<{ tronWeb: W; address: string } | { refused: boolean }> {
  const answer = await wallet.tronLink?.request({ method: 'tron_requestAccounts' });
  if (typeof answer === 'object' && answer?.code === 4001) return { refused: true };
  const tronWeb = wallet.tronWeb();
  const address = tronWeb?.defaultAddress.base58;
  if (!tronWeb || !address) return { refused: false };
  return { tronWeb, address };
}
