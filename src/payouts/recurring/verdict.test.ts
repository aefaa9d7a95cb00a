import { zeroAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { pulledPerPayment, verdictOf } from './verdict.ts';

/**
 * What each revert of a trigger means for the schedule: paid, a failure that pauses it (with
 * the words `payment.failed` carries), or a retry that leaves it alone.
 */

const FEE_ADDRESS = '0x000000000000000000000000000000000000fee5';
const schedule = {
  amount: 10_000_000n,
  feeAmount: 100_000n,
  relayerFee: 0n,
  feeAddress: FEE_ADDRESS,
  currency: 'USDC-base',
};
const plenty = { allowance: 10n ** 12n, balance: 10n ** 12n };
const custom = (name: string) => ({
  errorName: `ERC20RecurringPaymentProxy__${name}`,
  message: `ERC20RecurringPaymentProxy__${name}`,
});

describe('verdictOf', () => {
  it('counts AlreadyPaid as paid', () => {
    expect(verdictOf(custom('AlreadyPaid'), schedule, plenty, 6)).toEqual({ kind: 'paid' });
  });

  it.each([
    ['BadSignature', 'The permit signature does not recover to the payer'],
    ['SignatureExpired', 'The permit deadline has passed'],
    ['IndexOutOfBounds', 'The payment index is beyond the permit’s totalPayments'],
    ['PaymentOutOfOrder', 'The contract expects another payment index first (strict order)'],
  ])('pauses on %s', (name, reason) => {
    expect(verdictOf(custom(name), schedule, plenty, 6)).toEqual({ kind: 'failed', reason });
  });

  it('names the allowance, then the balance, when a token refuses', () => {
    const bare = { errorName: 'EmptyRevert', message: 'no reason given' };
    expect(verdictOf(bare, schedule, { ...plenty, allowance: 10_099_999n }, 6)).toEqual({
      kind: 'failed',
      reason:
        'Insufficient allowance: the payer allows the recurring payment proxy 10.099999 USDC-base, a payment takes 10.1 USDC-base',
    });
    expect(verdictOf(bare, schedule, { ...plenty, balance: 5_000_000n }, 6)).toEqual({
      kind: 'failed',
      reason: 'Insufficient balance: the payer holds 5 USDC-base, a payment takes 10.1 USDC-base',
    });
    expect(verdictOf(bare, schedule, plenty, 6)).toEqual({
      kind: 'failed',
      reason: 'The payment reverted: no reason given',
    });
  });

  it('retries what is not the payer’s doing', () => {
    expect(verdictOf(custom('NotDueYet'), schedule, plenty, 6).kind).toBe('retry');
    const paused = { errorName: 'Error', message: 'Pausable: paused' };
    expect(verdictOf(paused, schedule, plenty, 6)).toEqual({
      kind: 'retry',
      reason: 'the recurring payment proxy is paused',
    });
    const role = {
      errorName: 'Error',
      message: `AccessControl: account ${zeroAddress} is missing role 0xe2b7`,
    };
    expect(verdictOf(role, schedule, plenty, 6).kind).toBe('retry');
  });

  it('pulls the fee only when it has an address, as the contract does', () => {
    expect(pulledPerPayment(schedule)).toBe(10_100_000n);
    expect(pulledPerPayment({ ...schedule, feeAddress: zeroAddress, relayerFee: 5n })).toBe(
      10_000_005n,
    );
  });
});
