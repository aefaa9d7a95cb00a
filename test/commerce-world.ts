import type { Hex } from 'viem';
import { newPayToken } from '../src/base/ids.ts';
import { commercePayments } from '../src/db/schema.ts';
import { insertRequests } from '../src/requests/requests.ts';
import type { TestApp } from './app.ts';

/**
 * A commerce payment as the operations create it, written straight into the database: its
 * `requests` row (payee the merchant, the wrapper's key its payment reference) and its
 * `commerce_payments` row, for tests of detection that need no route.
 */
export async function insertCommercePayment(
  t: TestApp,
  input: {
    readonly accountId: string;
    readonly clientIdId?: string | null;
    readonly network?: 'base' | 'sepolia';
    readonly currency?: string;
    readonly merchant: string;
    readonly payer?: string | null;
    readonly operator: string;
    readonly amount: bigint;
    readonly authorizationExpiry?: number;
  },
) {
  const networkId = input.network ?? 'base';
  const network = t.chains.network(networkId);
  const currency = t.chains.currency(input.currency ?? `USDC-${networkId}`);
  const contracts = t.chains.contracts(networkId);
  if (!network || !currency?.address || !contracts.commerceEscrowWrapper)
    throw new Error(`no commerce on ${networkId}`);
  const [request] = await insertRequests(t.db, [
    {
      accountId: input.accountId,
      clientIdId: input.clientIdId ?? null,
      network,
      invoiceCurrency: currency,
      paymentCurrency: currency,
      expectedAmount: input.amount,
      payee: input.merchant,
    },
  ]);
  if (!request) throw new Error('no request');
  const expiry = input.authorizationExpiry ?? 4_000_000_000;
  const [row] = await t.db
    .insert(commercePayments)
    .values({
      requestId: request.requestId,
      payToken: newPayToken(),
      accountId: input.accountId,
      clientIdId: input.clientIdId ?? null,
      merchantId: 'shop-1',
      network: networkId,
      chainId: network.chainId,
      currency: currency.id,
      tokenAddress: currency.address,
      wrapper: contracts.commerceEscrowWrapper,
      escrow: contracts.authCaptureEscrow ?? contracts.commerceEscrowWrapper,
      merchant: input.merchant,
      payer: input.payer ?? null,
      operator: input.operator,
      tokenCollector: contracts.preApprovalPaymentCollector ?? contracts.commerceEscrowWrapper,
      amount: input.amount,
      maxAmount: input.amount,
      preApprovalExpiry: expiry,
      authorizationExpiry: expiry,
      refundExpiry: expiry + 86_400,
      paymentReference: request.paymentReference,
    })
    .returning();
  if (!row) throw new Error('no commerce payment');
  return { row, request, reference: `0x${request.paymentReference}` as Hex };
}
