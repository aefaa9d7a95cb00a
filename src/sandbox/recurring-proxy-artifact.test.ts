import { readFileSync } from 'node:fs';
import { type AbiItem, toFunctionSelector } from 'viem';
import { formatAbiItem } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { compileContract } from '../../test/solidity.ts';
import { RELAYER_ROLE, recurringPaymentProxyAbi } from '../payouts/recurring/abi.ts';
import { recurringPaymentProxyArtifact } from './recurring-proxy-artifact.ts';

const SOURCE = new URL('./contracts/ERC20RecurringPaymentProxy.sol', import.meta.url);

/** `name(types)` of every function, event and error: what selectors and topics are made of. */
function signatures(abi: readonly AbiItem[]): string[] {
  return abi
    .filter((item) => item.type === 'function' || item.type === 'event' || item.type === 'error')
    .map((item) => formatAbiItem(item));
}

describe('the shipped ERC20RecurringPaymentProxy artifact', () => {
  const compiled = compileContract(readFileSync(SOURCE, 'utf8'), 'ERC20RecurringPaymentProxy');

  it('is what compiling the source gives (else run scripts/build-recurring-proxy.ts)', () => {
    expect(recurringPaymentProxyArtifact.bytecode).toBe(compiled.bytecode);
    expect(recurringPaymentProxyArtifact.abi).toEqual(compiled.abi);
  });

  it('has every function and error of the deployed contract’s ABI', () => {
    const ours = signatures(compiled.abi);
    expect(ours).toEqual(expect.arrayContaining(signatures(recurringPaymentProxyAbi)));
    expect(
      toFunctionSelector(
        'triggerRecurringPayment((address,address,address,address,uint128,uint128,uint128,uint32,uint32,uint8,uint256,uint256,bool),bytes,uint8,bytes)',
      ),
    ).toBe('0xac7a9e00');
    expect(ours).toContain(
      'triggerRecurringPayment((address,address,address,address,uint128,uint128,uint128,uint32,uint32,uint8,uint256,uint256,bool),bytes,uint8,bytes)',
    );
    expect(ours).toContain('eip712Domain()');
  });

  it('gives the custom errors the selectors contracts.md lists', () => {
    const selectors = Object.fromEntries(
      compiled.abi
        .filter((item) => item.type === 'error')
        .map((item) => [
          item.name.replace('ERC20RecurringPaymentProxy__', ''),
          toFunctionSelector(formatAbiItem(item)),
        ]),
    );
    expect(selectors).toMatchObject({
      BadSignature: '0xd5a4f5ea',
      SignatureExpired: '0xda023c0b',
      PaymentOutOfOrder: '0x061235ef',
      IndexOutOfBounds: '0xbec060dd',
      NotDueYet: '0xb39d2709',
      AlreadyPaid: '0x544db32b',
    });
    expect(Object.keys(selectors)).toHaveLength(8);
    expect(RELAYER_ROLE).toBe('0xe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc4');
  });
});
