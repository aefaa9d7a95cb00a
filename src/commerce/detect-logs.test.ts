import { type Hex, toEventSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import { wrapperLog as buildLog } from '../../test/commerce-logs.ts';
import type { ContractLog } from '../detection/types.ts';
import { decodeCommerceLogs } from './detect-logs.ts';

const WRAPPER = '0x9A73b3774183d07d4a2b585B04982F2Ec672B03b';
const REFERENCE: Hex = '0x1234567890abcdef';
const PAYER = '0x1111111111111111111111111111111111111111';
const MERCHANT = '0x2222222222222222222222222222222222222222';
const TOKEN = '0x3333333333333333333333333333333333333333';
const HASH: Hex = `0x${'ab'.repeat(32)}`;
const TX: Hex = `0x${'cd'.repeat(32)}`;
const BLOCK_HASH: Hex = `0x${'ef'.repeat(32)}`;

/** A log of the wrapper at block 7 of transaction TX. */
function wrapperLog(
  eventName: Parameters<typeof buildLog>[0],
  values: readonly unknown[],
  position: { logIndex: number; txHash?: Hex; reference?: Hex },
): ContractLog {
  return buildLog(eventName, values, {
    wrapper: WRAPPER,
    reference: position.reference ?? REFERENCE,
    txHash: position.txHash ?? TX,
    logIndex: position.logIndex,
    blockNumber: 7n,
    blockHash: BLOCK_HASH,
  });
}

describe('decodeCommerceLogs', () => {
  it('reads the raw reference from the indexed bytes8 topic, left-aligned, not a hash', () => {
    const log = wrapperLog('PaymentCaptured', [HASH, 30_000_000n, MERCHANT], { logIndex: 0 });
    expect(log.topics[1]).toBe(`0x1234567890abcdef${'0'.repeat(48)}`);
    expect(decodeCommerceLogs([log])).toEqual([
      {
        type: 'captured',
        paymentReference: '1234567890abcdef',
        amount: 30_000_000n,
        payer: null,
        merchant: MERCHANT,
        token: null,
        commercePaymentHash: HASH,
        wrapper: WRAPPER,
        txHash: TX,
        logIndex: 0,
        blockNumber: 7n,
        blockHash: BLOCK_HASH,
        timestamp: new Date('2026-11-29T12:00:00Z'),
      },
    ]);
  });

  it('records one authorization when the wrapper emits PaymentAuthorized and its alias', () => {
    const events = decodeCommerceLogs([
      wrapperLog('PaymentAuthorized', [PAYER, MERCHANT, TOKEN, 50_000_000n, HASH], {
        logIndex: 3,
      }),
      wrapperLog('CommercePaymentAuthorized', [PAYER, MERCHANT, 50_000_000n], { logIndex: 4 }),
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'authorized',
      amount: 50_000_000n,
      payer: PAYER,
      merchant: MERCHANT,
      token: TOKEN,
      commercePaymentHash: HASH,
      logIndex: 3,
    });
  });

  it('counts the alias alone when no PaymentAuthorized of its reference is in the transaction', () => {
    const other: Hex = '0x00000000000000ff';
    const events = decodeCommerceLogs([
      wrapperLog('PaymentAuthorized', [PAYER, MERCHANT, TOKEN, 5n, HASH], {
        logIndex: 0,
        reference: other,
      }),
      wrapperLog('CommercePaymentAuthorized', [PAYER, MERCHANT, 9n], { logIndex: 1 }),
    ]);
    expect(events.map((e) => [e.type, e.paymentReference, e.amount, e.token])).toEqual([
      ['authorized', '00000000000000ff', 5n, TOKEN],
      ['authorized', '1234567890abcdef', 9n, null],
    ]);
  });

  it('maps every other event to its type and amount', () => {
    const events = decodeCommerceLogs([
      wrapperLog('PaymentVoided', [HASH, 1n, PAYER], { logIndex: 0 }),
      wrapperLog('PaymentRefunded', [HASH, 2n, PAYER], { logIndex: 1 }),
      wrapperLog('PaymentReclaimed', [HASH, 3n, PAYER], { logIndex: 2 }),
      wrapperLog('PaymentCharged', [PAYER, MERCHANT, TOKEN, 4n, HASH], { logIndex: 3 }),
    ]);
    expect(events.map((e) => [e.type, e.amount, e.payer])).toEqual([
      ['voided', 1n, PAYER],
      ['refunded', 2n, PAYER],
      ['reclaimed', 3n, PAYER],
      ['charged', 4n, PAYER],
    ]);
  });

  it('skips logs that are not the wrapper’s events', () => {
    const stranger: ContractLog = {
      ...wrapperLog('PaymentVoided', [HASH, 1n, PAYER], { logIndex: 0 }),
      topics: [toEventSelector('Transfer(address,address,uint256)')],
    };
    expect(decodeCommerceLogs([stranger])).toEqual([]);
  });
});
