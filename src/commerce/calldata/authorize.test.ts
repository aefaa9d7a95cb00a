import { toFunctionSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import { PAYMENT_ROW } from '../../../test/commerce-payment-row.ts';
import { authorizeTransaction, preApproveTransaction } from './authorize.ts';

describe('authorizeTransaction', () => {
  it('encodes authorizePayment(AuthParams) with the pre-approval collector and no data', () => {
    const payer = PAYMENT_ROW.payer ?? '';
    expect(authorizeTransaction({ ...PAYMENT_ROW, payer })).toMatchInlineSnapshot(`
      {
        "chainId": 8453,
        "data": "0x03af28e000000000000000000000000000000000000000000000000000000000000000200123456789abcdef0000000000000000000000000000000000000000000000000000000000000000000000003c44cdddb6a900fa2b585dd299e03d12fa4293bc00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c800000000000000000000000090f79bf6eb2c4f870365e785982e1f101e93b906000000000000000000000000833589fcd6edb6e08f4c7c32d4f71b54bda029130000000000000000000000000000000000000000000000000000000002faf0800000000000000000000000000000000000000000000000000000000002faf080000000000000000000000000000000000000000000000000000000006b02e750000000000000000000000000000000000000000000000000000000006b0c13c0000000000000000000000000000000000000000000000000000000006b33a0c00000000000000000000000001b77abd71fcd21fbe2398ae821aa27d1e6b94bc600000000000000000000000000000000000000000000000000000000000001800000000000000000000000000000000000000000000000000000000000000000",
        "to": "0x9A73b3774183d07d4a2b585B04982F2Ec672B03b",
        "value": "0x0",
      }
    `);
  });

  it('encodes preApproveAuthorization(AuthParams): the same terms, under its own selector', () => {
    const payment = { ...PAYMENT_ROW, payer: PAYMENT_ROW.payer ?? '' };
    const authorize = authorizeTransaction(payment);
    const preApprove = preApproveTransaction(payment);
    expect(preApprove.data.slice(0, 10)).toBe(
      toFunctionSelector(
        'preApproveAuthorization((bytes8,address,address,address,address,uint256,uint256,uint256,uint256,uint256,address,bytes))',
      ),
    );
    expect(preApprove).toEqual({ ...authorize, data: preApprove.data });
    expect(preApprove.data.slice(10)).toBe(authorize.data.slice(10));
  });
});
