import { describe, expect, it } from 'vitest';
import { PAYMENT_ROW } from '../../../test/commerce-payment-row.ts';
import { voidTransaction } from './void.ts';

describe('voidTransaction', () => {
  it('encodes voidPayment(ref)', () => {
    expect(voidTransaction(PAYMENT_ROW)).toMatchInlineSnapshot(`
      {
        "chainId": 8453,
        "data": "0x4eff27600123456789abcdef000000000000000000000000000000000000000000000000",
        "to": "0x9A73b3774183d07d4a2b585B04982F2Ec672B03b",
        "value": "0x0",
      }
    `);
  });
});
