import type { UserEvent } from '../api.ts';
import type { PayContext } from '../context.ts';

/**
 * The payer's funnel, reported to the merchant as `secure_payment.user_event` webhooks: best
 * effort (never awaited by the payment), and never the wallet address in clear, only its
 * SHA-256 (`wallet_address_hashed`, of the lower-cased address on EVM, base58 as is on Tron).
 */

async function sha256Hex(text: string): Promise<string | null> {
  // Only secure contexts (https, localhost) have SubtleCrypto; elsewhere the hash is left out.
  if (!globalThis.crypto?.subtle) return null;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function hashAddress(address: string): Promise<string | null> {
  return sha256Hex(address.startsWith('0x') ? address.toLowerCase() : address);
}

export type Report = (
  event: UserEvent['userEvent'],
  extra?: Readonly<Record<string, string>>,
) => void;

export function reporter(context: PayContext, walletProvider: string, address: string): Report {
  const hashed = hashAddress(address).catch(() => null);
  return (event, extra = {}) => {
    void hashed.then((hash) =>
      context.api.userEvent(context.token, {
        userEvent: event,
        occurredAt: new Date().toISOString(),
        properties: {
          wallet_provider: walletProvider,
          payment_type: context.display.paymentType,
          selected_source_chain: context.display.network,
          ...(hash && { wallet_address_hashed: hash }),
          ...extra,
        },
      }),
    );
  };
}
