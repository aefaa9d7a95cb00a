import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import type { Currency } from '../chains/currencies.ts';
import { insertRequests, type RequestRow } from '../requests/requests.ts';
import { matchRequests } from './record.ts';
import type { DetectedPayment } from './types.ts';

/**
 * Which request an event pays: the reference, the token, the payee, and whether it is a
 * conversion payment of the request's own invoice currency or a plain payment of what it asks.
 */

const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db);
});
afterAll(() => t?.close());

function currency(id: string): Currency {
  const found = t.chains.currency(id);
  if (!found) throw new Error(id);
  return found;
}

async function request(invoice: string): Promise<RequestRow> {
  const network = t.chains.network('base');
  if (!network) throw new Error('base');
  const [row] = await insertRequests(t.db, [
    {
      accountId: tenant.accountId,
      clientIdId: null,
      network,
      invoiceCurrency: currency(invoice),
      paymentCurrency: currency('USDC-base'),
      expectedAmount: 1_000n,
      payee: PAYEE,
    },
  ]);
  if (!row) throw new Error('no row');
  return row;
}

function event(row: RequestRow, conversion?: DetectedPayment['conversion']): DetectedPayment {
  return {
    network: 'base',
    txHash: `0x${'ab'.repeat(32)}`,
    logIndex: 0,
    blockNumber: 1n,
    blockHash: `0x${'cd'.repeat(32)}`,
    timestamp: new Date(0),
    referenceTopic: row.referenceTopic ?? '',
    tokenAddress: currency('USDC-base').address,
    payee: PAYEE,
    amount: 10n,
    feeAmount: 0n,
    feeAddress: null,
    payerAddress: null,
    payerEoaAddress: null,
    ...(conversion && { conversion }),
  };
}

const converted = (from: string) => ({
  currency: currency(from).hash.toLowerCase(),
  amount: 1n,
  feeAmount: 0n,
  maxRateTimespan: 0n,
  amountInUsd: null,
});

describe('matchRequests', () => {
  it('matches a plain payment to a plain request, never a conversion payment', async () => {
    const row = await request('USDC-base');
    const matched = await matchRequests(t.db, t.chains, 'base', [
      event(row),
      event(row, converted('USD')),
    ]);
    expect(matched.map((m) => m.event.conversion ?? null)).toEqual([null]);
  });

  it('matches a fiat request only to a conversion from its own currency', async () => {
    const row = await request('USD');
    const matched = await matchRequests(t.db, t.chains, 'base', [
      event(row),
      event(row, converted('EUR')),
      event(row, converted('USD')),
    ]);
    expect(matched.map((m) => m.event.conversion?.currency ?? null)).toEqual([
      converted('USD').currency,
    ]);
  });
});
