import { decodeFunctionData, slice } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { recurringPaymentProxyAbi } from './abi.ts';
import { schedulePermitTypedData } from './permit.ts';
import { triggerRecurringPayment } from './trigger.ts';

const payer = privateKeyToAccount(
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
);
const proxy = '0xd2c3392e3e70F4CE033Cb39CC80B414aDdD64fFa' as const;
const permit = {
  subscriber: payer.address,
  token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  recipient: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  feeAddress: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  amount: 25_000_000n,
  feeAmount: 250_000n,
  relayerFee: 10_000n,
  periodSeconds: 604_800,
  firstPayment: 1_798_761_600,
  totalPayments: 4,
  nonce: 3n,
  deadline: 1_830_297_600n,
  strictOrder: true,
} as const;

describe('triggerRecurringPayment', () => {
  it('encodes the permit, the signature, the 1-based index and the reference', async () => {
    // RFC 6979 signatures are deterministic: the same key and typed data give the same bytes.
    const signature = await payer.signTypedData(schedulePermitTypedData(8453, proxy, permit));
    const tx = triggerRecurringPayment({
      chainId: 8453,
      proxy,
      permit,
      signature,
      index: 2,
      paymentReference: '0123456789abcdef',
    });
    expect(slice(tx.data, 0, 4)).toBe('0xac7a9e00');
    expect(decodeFunctionData({ abi: recurringPaymentProxyAbi, data: tx.data }).args).toEqual([
      permit,
      signature,
      2,
      '0x0123456789abcdef',
    ]);
    expect(tx).toMatchInlineSnapshot(`
      {
        "chainId": 8453,
        "data": "0xac7a9e0000000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8000000000000000000000000833589fcd6edb6e08f4c7c32d4f71b54bda029130000000000000000000000003c44cdddb6a900fa2b585dd299e03d12fa4293bc000000000000000000000000fb6916095ca1df60bb79ce92ce3ea74c37c5d35900000000000000000000000000000000000000000000000000000000017d7840000000000000000000000000000000000000000000000000000000000003d09000000000000000000000000000000000000000000000000000000000000027100000000000000000000000000000000000000000000000000000000000093a80000000000000000000000000000000000000000000000000000000006b36ec8000000000000000000000000000000000000000000000000000000000000000040000000000000000000000000000000000000000000000000000000000000003000000000000000000000000000000000000000000000000000000006d18200000000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000000000000002800000000000000000000000000000000000000000000000000000000000000041d84ee3d6f2df204f81ebbcb74c0e8c701868efeab7dfd9bda2ee27ccd86d793e22eb47cf88e59ae208fabe72b7be2e4ed326410d4d2596f8fc594fd45d2bf91c1c0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080123456789abcdef000000000000000000000000000000000000000000000000",
        "to": "0xd2c3392e3e70F4CE033Cb39CC80B414aDdD64fFa",
        "value": "0x0",
      }
    `);
  });

  it('refuses index 0 and an index past the last payment', () => {
    const input = {
      chainId: 8453,
      proxy,
      permit,
      signature: '0x' as const,
      paymentReference: '0123456789abcdef',
    };
    expect(() =>
      triggerRecurringPayment({ ...input, index: 0 }),
    ).toThrowErrorMatchingInlineSnapshot(`[RangeError: index 0 is outside 1..4]`);
    expect(() =>
      triggerRecurringPayment({ ...input, index: 5 }),
    ).toThrowErrorMatchingInlineSnapshot(`[RangeError: index 5 is outside 1..4]`);
    expect(triggerRecurringPayment({ ...input, index: 4 }).to).toBe(proxy);
  });
});
