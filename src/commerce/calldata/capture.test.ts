import { describe, expect, it } from 'vitest';
import { PAYMENT_ROW } from '../../../test/commerce-payment-row.ts';
import { captureTransaction } from './capture.ts';

describe('captureTransaction', () => {
  it('encodes capturePayment(ref, amount, feeBps, feeReceiver)', () => {
    expect(
      captureTransaction(PAYMENT_ROW, {
        amount: 30_000_000n,
        feeBps: 100,
        feeReceiver: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
      }),
    ).toMatchInlineSnapshot(`
      {
        "chainId": 8453,
        "data": "0xa26157670123456789abcdef0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001c9c380000000000000000000000000000000000000000000000000000000000000006400000000000000000000000015d34aaf54267db7d7c367839aaf71a00a2c6a65",
        "to": "0x9A73b3774183d07d4a2b585B04982F2Ec672B03b",
        "value": "0x0",
      }
    `);
  });
});
