import { describe, expect, it } from 'vitest';
import { PAYMENT_ROW } from '../../../test/commerce-payment-row.ts';
import { approveWrapperTransaction } from './approve-wrapper.ts';

describe('approveWrapperTransaction', () => {
  it('encodes the token’s approve(wrapper, amount)', () => {
    expect(approveWrapperTransaction(PAYMENT_ROW, 50_000_000n)).toMatchInlineSnapshot(`
      {
        "chainId": 8453,
        "data": "0x095ea7b30000000000000000000000009a73b3774183d07d4a2b585b04982f2ec672b03b0000000000000000000000000000000000000000000000000000000002faf080",
        "to": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        "value": "0x0",
      }
    `);
  });
});
