import type { Clock } from '../base/clock.ts';
import { AppError, type FieldError } from '../base/errors.ts';
import { parseAddress } from '../chains/address.ts';
import type { ChainClients } from '../chains/clients.ts';
import { intentChainOf, NETWORKS, SANDBOX_NETWORKS } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import type { Link } from './links.ts';

/** What recording an intent needs, and the body it reads (api-facts §2.8). */

export type IntentDeps = {
  readonly db: Database;
  readonly clock: Clock;
  readonly chains: ChainRegistry;
  /** Which networks a transfer may come from: those `/pay` routes from (an RPC configured). */
  readonly clients: ChainClients;
};

interface LegIndex {
  readonly childPosition: number;
  readonly transactionIndex: number;
  readonly [extra: string]: unknown;
}

export interface IntentBody {
  readonly chain: string;
  readonly token?: string | undefined;
  readonly txHash?: string | undefined;
  readonly safeTxHash?: string | undefined;
  readonly safePaymentDeadline?: number | undefined;
  readonly executionKind?: string | undefined;
  readonly payerAddress?: string | undefined;
  readonly payerEoaAddress?: string | undefined;
  readonly smartAccountAddress?: string | undefined;
  readonly userOpHash?: string | undefined;
  readonly transactionIndices?: readonly LegIndex[] | undefined;
  readonly [extra: string]: unknown;
}

/** The network a body's `chain` (`BASE`, `ETHEREUM`, …, or our `SANDBOX`, `SANDBOX_B`) names. */
export function networkOf(chain: string): string | null {
  return (
    [...NETWORKS, ...SANDBOX_NETWORKS].find((network) => intentChainOf(network) === chain)?.id ??
    null
  );
}

/** Whether the body says its transaction is on another network than the link's. */
export function isCrossChain(link: Link, body: IntentBody): boolean {
  const network = networkOf(body.chain);
  return (
    body.executionKind === 'evm_cross_chain' || (network !== null && network !== link.row.network)
  );
}

/** The chain must be the link's where cross-chain is not taken (Safes, multicall receipts). */
export function checkChain(link: Link, body: IntentBody, errors: FieldError[]): string {
  const network = networkOf(body.chain);
  if (isCrossChain(link, body)) {
    throw new AppError(
      'crosschain_unavailable',
      `Cross-chain payments are not available here: this link is paid on ${link.row.network}`,
    );
  }
  if (network === null) errors.push({ field: 'chain', message: `unknown chain ${body.chain}` });
  return network ?? link.row.network;
}

/** The token must be the symbol the link is paid in. */
export function checkToken(link: Link, body: IntentBody, errors: FieldError[]): void {
  if (body.token === undefined) {
    errors.push({ field: 'token', message: 'is required' });
    return;
  }
  const symbol = link.requests[0]?.paymentCurrency.split('-')[0];
  if (symbol !== undefined && body.token !== symbol.toUpperCase()) {
    errors.push({ field: 'token', message: `this link is paid in ${symbol}, not ${body.token}` });
  }
}

export function checkAddress(field: string, value: string | undefined, errors: FieldError[]): void {
  if (value === undefined) return;
  const parsed = parseAddress(value, { kind: 'evm' });
  if (!parsed.ok) errors.push({ field, message: parsed.message });
}

/** The rest of the body, kept for audit (route, bridge, source token and amount). */
export function details(body: IntentBody): Record<string, unknown> {
  const {
    chain: _chain,
    txHash: _tx,
    safeTxHash: _safe,
    safePaymentDeadline: _deadline,
    payerAddress: _payer,
    payerEoaAddress: _eoa,
    smartAccountAddress: _account,
    userOpHash: _op,
    transactionIndices,
    ...rest
  } = body;
  return transactionIndices === undefined ? rest : { ...rest, transactionIndices };
}
