import {
  concat,
  encodeAbiParameters,
  hashTypedData,
  keccak256,
  recoverTypedDataAddress,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { SCHEDULE_PERMIT_TYPEHASH, schedulePermitBody, schedulePermitTypedData } from './permit.ts';

const payer = privateKeyToAccount(
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
);
const proxy = '0xF0Bebbc99E26Ba7F651E7Ff14e0D3029B0228880';
const values = {
  subscriber: payer.address,
  token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  recipient: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  feeAddress: '0x0000000000000000000000000000000000000000',
  amount: 25_000_000n,
  feeAmount: 250_000n,
  relayerFee: 0n,
  periodSeconds: 2_419_200,
  firstPayment: 1_798_761_600,
  totalPayments: 12,
  nonce: 7n,
  deadline: 1_830_297_600n,
  strictOrder: true,
} as const;

describe('the SchedulePermit typed data', () => {
  it('uses the deployed contract’s typehash', () => {
    const typeString =
      'SchedulePermit(address subscriber,address token,address recipient,address feeAddress,uint128 amount,uint128 feeAmount,uint128 relayerFee,uint32 periodSeconds,uint32 firstPayment,uint8 totalPayments,uint256 nonce,uint256 deadline,bool strictOrder)';
    expect(keccak256(toHex(typeString))).toBe(SCHEDULE_PERMIT_TYPEHASH);
  });

  it('hashes to the digest built by hand from the typehash and the domain', () => {
    const typedData = schedulePermitTypedData(1, proxy, values);
    const domainSeparator = keccak256(
      encodeAbiParameters(
        [
          { type: 'bytes32' },
          { type: 'bytes32' },
          { type: 'bytes32' },
          { type: 'uint256' },
          { type: 'address' },
        ],
        [
          keccak256(
            toHex(
              'EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)',
            ),
          ),
          keccak256(toHex('ERC20RecurringPaymentProxy')),
          keccak256(toHex('1')),
          1n,
          proxy,
        ],
      ),
    );
    const structHash = keccak256(
      encodeAbiParameters(
        [
          { type: 'bytes32' },
          ...['address', 'address', 'address', 'address'].map((type) => ({ type })),
          ...['uint128', 'uint128', 'uint128', 'uint32', 'uint32', 'uint8'].map((type) => ({
            type,
          })),
          { type: 'uint256' },
          { type: 'uint256' },
          { type: 'bool' },
        ],
        [
          SCHEDULE_PERMIT_TYPEHASH,
          values.subscriber,
          values.token,
          values.recipient,
          values.feeAddress,
          values.amount,
          values.feeAmount,
          values.relayerFee,
          values.periodSeconds,
          values.firstPayment,
          values.totalPayments,
          values.nonce,
          values.deadline,
          values.strictOrder,
        ],
      ),
    );
    const digest = keccak256(concat(['0x1901', domainSeparator, structHash]));
    expect(hashTypedData(typedData)).toBe(digest);
  });

  it('lets viem recover the payer from a wallet’s signature', async () => {
    const typedData = schedulePermitTypedData(8453, proxy, values);
    const signature = await payer.signTypedData(typedData);
    expect(await recoverTypedDataAddress({ ...typedData, signature })).toBe(payer.address);
  });

  it('carries big numbers as decimal strings in the response body', () => {
    const body = schedulePermitBody(schedulePermitTypedData(1, proxy, values));
    expect(body.domain).toEqual({
      name: 'ERC20RecurringPaymentProxy',
      version: '1',
      chainId: 1,
      verifyingContract: proxy,
    });
    expect(body.values).toMatchObject({ amount: '25000000', nonce: '7', totalPayments: 12 });
    expect(body.types.SchedulePermit).toHaveLength(13);
  });
});
