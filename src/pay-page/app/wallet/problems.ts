/**
 * Wallet and chain errors, in words a payer understands. Wallets report EIP-1193 codes (4001:
 * the user said no) and JSON-RPC messages; viem wraps them, keeping the original as `cause`.
 */

/** A problem already in plain words (ours, not the wallet's). */
export class Problem extends Error {}

/** The first numeric `code` down the chain of causes. */
export function codeOf(error: unknown): number | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'number') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Every message down the chain of causes, for recognising the well-known ones. */
function textOf(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current; depth++) {
    const { message, details } = current as { message?: unknown; details?: unknown };
    if (typeof message === 'string') parts.push(message);
    if (typeof details === 'string') parts.push(details);
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(' ');
}

/** The chain refused the call (a wallet's estimate, or the node): not the payer's doing. */
export function isRevert(error: unknown): boolean {
  return codeOf(error) !== 4001 && /revert/i.test(textOf(error));
}

export interface Words {
  /** The network's name ("Base"). */
  readonly network: string;
  /** Its native currency's symbol, which pays the network fee ("ETH", "TRX"). */
  readonly native: string;
}

export const REJECTED = 'You declined in your wallet, so nothing was sent. You can try again.';

export function explain(error: unknown, words: Words): string {
  if (error instanceof Problem) return error.message;
  const code = codeOf(error);
  const text = textOf(error);
  if (code === 4001 || /user (rejected|denied|cancel)|rejected by user|declined/i.test(text)) {
    return REJECTED;
  }
  if (code === 4100) {
    return 'Your wallet did not let this page use your account. Unlock it, allow this site, and try again.';
  }
  if (code === -32002) {
    return 'Your wallet already has a request waiting. Open your wallet to answer it, then try again.';
  }
  if (code === 4902 || /unrecognized chain|unknown chain|chain .*not (been )?added/i.test(text)) {
    return `Your wallet does not know the ${words.network} network. Add ${words.network} to your wallet, then try again.`;
  }
  if (/insufficient funds|exceeds balance|not enough (balance|funds)/i.test(text)) {
    return `Your wallet does not hold enough ${words.native} to pay this and its network fee (gas). Add ${words.native} to it, then try again.`;
  }
  if (/chain ?id|wrong (network|chain)|does not match the target chain/i.test(text)) {
    return `Your wallet is on another network. Switch it to ${words.network}, then try again.`;
  }
  if (/revert/i.test(text)) {
    return 'The network refused the transaction, so nothing was paid. Try again; if it keeps failing, contact the merchant.';
  }
  if (/failed to fetch|network ?error|timeout|timed out/i.test(text)) {
    return 'The connection was lost. Check it and try again.';
  }
  const said = text.split('\n')[0]?.slice(0, 160).trim();
  return said
    ? `Your wallet reported a problem: ${said}`
    : 'Your wallet reported a problem. Try again.';
}
