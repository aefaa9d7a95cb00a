import { describe, expect, it } from 'vitest';
import { ValidationError } from '../base/errors.ts';
import { checkPayer, smartAccountOf } from './payer.ts';

const ACCOUNT = '0x1111111111111111111111111111111111111111';
const OWNER = '0x2222222222222222222222222222222222222222';

describe('checkPayer', () => {
  it('needs the smart account (wallet) whenever the owner EOA (eoaWallet) is named', () => {
    expect(() => checkPayer({ kind: 'evm' }, { eoaWallet: OWNER })).toThrow(ValidationError);
    expect(() => checkPayer({ kind: 'evm' }, { eoaWallet: OWNER })).toThrow(
      expect.objectContaining({
        errors: [
          {
            field: 'wallet',
            message: 'is required with eoaWallet (the smart account that executes the payment)',
          },
        ],
      }),
    );
  });

  it('refuses eoaWallet on Tron, where there are no such accounts', () => {
    expect(() =>
      checkPayer(
        { kind: 'tron' },
        { wallet: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', eoaWallet: 'x' },
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'smart_account_unsupported',
        message: 'Smart-account payments (eoaWallet) are not supported on Tron',
      }),
    );
  });
});

describe('smartAccountOf', () => {
  it('names the account and its owner only when both are given and differ', () => {
    expect(smartAccountOf({ wallet: ACCOUNT, eoaWallet: OWNER })).toEqual({
      account: ACCOUNT,
      owner: OWNER,
    });
    expect(
      smartAccountOf({ wallet: ACCOUNT, eoaWallet: ACCOUNT.toUpperCase().replace('0X', '0x') }),
    ).toBeNull();
    expect(smartAccountOf({ wallet: ACCOUNT })).toBeNull();
    expect(smartAccountOf({})).toBeNull();
  });
});
