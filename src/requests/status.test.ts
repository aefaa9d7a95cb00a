import { describe, expect, it } from 'vitest';
import {
  apiKey,
  created,
  getRequest,
  setupRequestsApp,
  tenantB,
  wallet,
} from '../../test/requests.ts';

/** `GET /v2/request/{requestId}` over HTTP on the real app: the status record of a request. */

setupRequestsApp();

describe('GET /v2/request/{requestId}', () => {
  it('returns the status record with human-readable amounts, unpaid and pending', async () => {
    const { requestId, paymentReference } = await created({
      amount: '12.5',
      payee: wallet(1).address.toLowerCase(),
      reference: 'order-7',
    });
    const res = await getRequest(requestId);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      requestId,
      paymentReference,
      hasBeenPaid: false,
      isListening: true,
      status: 'pending',
      txHash: null,
      payee: wallet(1).address,
      payer: null,
      network: 'base',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      requestAmount: '12.5',
      expectedAmount: '12.5',
      totalAmountPaid: '0',
      excessAmount: null,
      payerAddress: null,
      payerEoaAddress: null,
      reference: 'order-7',
      customerInfo: null,
      payments: [],
      isCryptoToFiatAvailable: false,
      isRecurrenceStopped: false,
      amountInUsd: null,
      conversionRate: null,
      conversionBreakdown: null,
      fees: [],
      createdAt: expect.any(String),
    });
    expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);
  });

  it('finds the request whatever the case of its id', async () => {
    const { requestId } = await created();
    const res = await getRequest(requestId.toUpperCase());
    expect(res.statusCode).toBe(200);
    expect(res.json().requestId).toBe(requestId);
  });

  it("answers 404 for another account's request and for an unknown id", async () => {
    const { requestId } = await created();
    const other = await getRequest(requestId, apiKey(tenantB));
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({ message: 'Request not found', code: 'request_not_found' });
    const unknown = await getRequest(`01${'ab'.repeat(32)}`);
    expect(unknown.statusCode).toBe(404);
  });
});
