/**
 * What this browser sent for a link: a payer who reloads or comes back while confirmations
 * accrue sees the payment on its way, not the link due again with a Pay button one tap from
 * paying twice. Where storage is off (some private modes), nothing is kept and the page is as
 * it would be without it.
 */

const keyOf = (token: string) => `payreq:sent:${token}`;

export function rememberSent(token: string, txHashes: readonly string[]): void {
  try {
    localStorage.setItem(keyOf(token), JSON.stringify(txHashes));
  } catch {
    // Storage off or full: the page still follows the payment while it stays open.
  }
}

/** The transactions this browser sent for the link, or null when it sent none. */
export function sentFromHere(token: string): string[] | null {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(keyOf(token)) ?? 'null');
    return Array.isArray(saved) && saved.every((hash) => typeof hash === 'string') ? saved : null;
  } catch {
    return null;
  }
}

/** The payment this browser sent failed (refused, reverted): the link is due again. */
export function forgetSent(token: string): void {
  try {
    localStorage.removeItem(keyOf(token));
  } catch {
    // Storage off: nothing was kept.
  }
}
