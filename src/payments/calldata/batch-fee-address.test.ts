import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/app.ts';
import { TEST_FEE_ADDRESS as FEE_ADDRESS, legMaker } from '../../../test/legs.ts';
import { createChainRegistry } from '../../chains/registry.ts';
import { batchFeeAddress } from './batch-fee-address.ts';

const chains = createChainRegistry(testConfig());

const leg = legMaker(chains);
const PAYER = '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB';

describe('batchFeeAddress', () => {
  const usdc = (reference: string, fee: bigint, feeAddress?: string | null) =>
    leg('USDC-base', 1_000_000n, reference, fee, feeAddress === undefined ? {} : { feeAddress });

  it('is the fee address the charged requests share, whoever else is in the batch', () => {
    expect(
      batchFeeAddress([usdc('1111111111111111', 0n), usdc('2222222222222222', 5n)], PAYER),
    ).toBe(FEE_ADDRESS);
  });

  it("is a request's fee address even when none charges a fee", () => {
    expect(
      batchFeeAddress(
        [usdc('1111111111111111', 0n), usdc('2222222222222222', 0n, FEE_ADDRESS)],
        PAYER,
      ),
    ).toBe(FEE_ADDRESS);
  });

  it('names the payer when no request names a fee address', () => {
    expect(
      batchFeeAddress([usdc('1111111111111111', 0n), usdc('2222222222222222', 0n)], PAYER),
    ).toBe(PAYER);
  });

  it('names the first payee of an ERC20 batch when no request and no wallet name one', () => {
    // The SDK's zero address would make the contract's batch-fee transferFrom revert.
    expect(
      batchFeeAddress([usdc('1111111111111111', 0n), usdc('2222222222222222', 0n)], null),
    ).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
  });

  it('names the zero address, as the SDK, for a native-only batch with no fee address', () => {
    const native = [
      leg('ETH-mainnet', 1n, '1111111111111111', 0n),
      leg('ETH-mainnet', 2n, '2222222222222222', 0n),
    ];
    expect(batchFeeAddress(native, PAYER)).toBe('0x0000000000000000000000000000000000000000');
  });

  it('refuses requests whose fees go to different addresses', () => {
    const legs = [usdc('1111111111111111', 5n), usdc('2222222222222222', 5n, PAYER)];
    expect(() => batchFeeAddress(legs, PAYER)).toThrowErrorMatchingInlineSnapshot(
      `[AppError: Requests whose fees go to different addresses cannot be paid in one batch]`,
    );
  });

  it('treats one fee address in two spellings as one', () => {
    const legs = [
      usdc('1111111111111111', 5n),
      usdc('2222222222222222', 5n, FEE_ADDRESS.toLowerCase()),
    ];
    expect(batchFeeAddress(legs, PAYER)).toBe(FEE_ADDRESS);
  });
});
