import { describe, expect, it } from 'vitest';
import { SAFE_TX_TYPES as SERVER_TYPES } from '../../../payments/safe/safe-tx.ts';
import { SAFE_TX_TYPES } from './safe-tx-types.ts';

describe('the pay page’s SafeTx types', () => {
  it('are those the server hashes a Safe transaction with, under the Safe’s domain', () => {
    expect(SAFE_TX_TYPES.SafeTx).toEqual(SERVER_TYPES.SafeTx);
    expect(SAFE_TX_TYPES.EIP712Domain).toEqual([
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ]);
  });
});
