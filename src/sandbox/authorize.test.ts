import { encodeErrorResult, RawContractError, toHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { commerceErrorsAbi } from '../payments/commerce/errors.ts';
import { refused } from './authorize.ts';

describe('sandbox authorize’s failures', () => {
  it('names the wrapper’s refusal, and says when the reference is taken', () => {
    const reference = toHex(1n, { size: 8 });
    const data = encodeErrorResult({
      abi: commerceErrorsAbi,
      errorName: 'PaymentAlreadyExists',
      args: [reference],
    });
    expect(refused(new RawContractError({ data }))).toEqual(
      new Error(
        `the wrapper refused the authorization: PaymentAlreadyExists(${reference}): another authorization already holds this payment reference (docs/guides/commerce.md#who-may-authorize)`,
      ),
    );
  });

  it('leaves a failure that carries no refusal as it is', () => {
    const error = new Error('socket hang up');
    expect(refused(error)).toBe(error);
  });
});
