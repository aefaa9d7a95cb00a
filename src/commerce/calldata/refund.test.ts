import { describe, expect, it } from 'vitest';
import { PAYMENT_ROW } from '../../../test/commerce-payment-row.ts';
import { refundTransaction } from './refund.ts';

describe('refundTransaction', () => {
  it('encodes refundPayment(ref, amount, operatorRefundCollector, 0x)', () => {
    expect(
      refundTransaction(PAYMENT_ROW, {
        amount: 10_000_000n,
        refundCollector: '0x934907bffd0901b6A21e398B9C53A4A38F02fa5d',
      }),
    ).toMatchInlineSnapshot(`
      {
        "chainId": 8453,
        "data": "0xf9b777ea0123456789abcdef0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000989680000000000000000000000000934907bffd0901b6a21e398b9c53a4a38f02fa5d00000000000000000000000000000000000000000000000000000000000000800000000000000000000000000000000000000000000000000000000000000000",
        "to": "0x9A73b3774183d07d4a2b585B04982F2Ec672B03b",
        "value": "0x0",
      }
    `);
  });
});
