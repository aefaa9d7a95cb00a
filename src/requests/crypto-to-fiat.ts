import type { NetworkId } from '../chains/networks.ts';

/**
 * Crypto-to-fiat takes USDC on Ethereum, Polygon, Arbitrum One and Sepolia (api-facts §5), and
 * on the sandbox's chain, which stands in for Sepolia. The value is the network's name in the
 * off-ramp provider's API (its `payment_rail`).
 */
const OFFRAMP_RAILS: Partial<Record<NetworkId, string>> = {
  mainnet: 'ethereum',
  matic: 'polygon',
  'arbitrum-one': 'arbitrum',
  sepolia: 'sepolia',
  sandbox: 'sandbox',
};

/** The one token crypto-to-fiat takes. */
const OFFRAMP_TOKEN = 'USDC';

const RAILS = new Map<string, string>(Object.entries(OFFRAMP_RAILS));

export function offrampRail(network: string): string | undefined {
  return RAILS.get(network);
}

/** The networks by name, for messages: `Ethereum, Polygon, …`. */
const OFFRAMP_NETWORK_NAMES = 'Ethereum, Polygon, Arbitrum One, Sepolia and the sandbox';

/**
 * `isCryptoToFiatAvailable: true` on `POST /v2/request`: USDC, invoiced in USDC (the payment goes
 * through ERC20FeeProxy to the provider's deposit address), on a network the off-ramp takes.
 */
export function cryptoToFiatRefusal(
  network: string,
  payment: { readonly symbol: string; readonly id: string },
  invoice: { readonly id: string },
): string | null {
  if (offrampRail(network) === undefined || payment.symbol !== OFFRAMP_TOKEN)
    return `Crypto-to-fiat payments take USDC on ${OFFRAMP_NETWORK_NAMES}`;
  if (invoice.id !== payment.id)
    return 'Crypto-to-fiat requests are invoiced in their payment currency (USDC of the same network)';
  return null;
}
