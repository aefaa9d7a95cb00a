import { describe, expect, it } from 'vitest';
import { isOurAuthorization } from './payment.ts';

const payment: Parameters<typeof isOurAuthorization>[0] = {
  merchant: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  tokenAddress: '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9',
  amount: 50_000_000n,
  commercePaymentHash: `0x${'ab'.repeat(32)}`,
  payer: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  operator: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
};
/** What the wrapper stored as the authorization's operator. */
const ours = payment.operator.toLowerCase();
const row = payment;

const announced = {
  payer: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  merchant: payment.merchant.toLowerCase(),
  token: payment.tokenAddress,
  amount: payment.amount,
  commercePaymentHash: payment.commercePaymentHash,
};

describe('isOurAuthorization', () => {
  it('takes the authorization the payment asked for, whatever the case of its addresses', () => {
    expect(isOurAuthorization(row, announced, ours)).toBe(true);
  });

  it('refuses one anyone else could have sent with the same reference', () => {
    expect(isOurAuthorization(row, { ...announced, amount: 1n }, ours)).toBe(false);
    expect(isOurAuthorization(row, { ...announced, payer: `0x${'11'.repeat(20)}` }, ours)).toBe(
      false,
    );
    expect(isOurAuthorization(row, { ...announced, merchant: `0x${'22'.repeat(20)}` }, ours)).toBe(
      false,
    );
    expect(isOurAuthorization(row, { ...announced, token: `0x${'33'.repeat(20)}` }, ours)).toBe(
      false,
    );
    expect(
      isOurAuthorization(row, { ...announced, commercePaymentHash: `0x${'cd'.repeat(32)}` }, ours),
    ).toBe(false);
    // CommercePaymentAuthorized carries no hash: only PaymentAuthorized is taken.
    expect(isOurAuthorization(row, { ...announced, commercePaymentHash: null }, ours)).toBe(false);
  });

  it('refuses one the wrapper stored for another operator, or for none', () => {
    expect(isOurAuthorization(row, announced, `0x${'44'.repeat(20)}`)).toBe(false);
    expect(isOurAuthorization(row, announced, null)).toBe(false);
  });

  it('takes any buyer for a payment that names none', () => {
    const open = { ...payment, payer: null };
    expect(isOurAuthorization(open, { ...announced, payer: `0x${'11'.repeat(20)}` }, ours)).toBe(
      true,
    );
  });
});
