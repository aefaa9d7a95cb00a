import { describe, expect, it } from 'vitest';
import { checkVoid } from './limits.ts';
import { commerceState, type StateAction, type StateEvent } from './state.ts';

const NOW = new Date('2026-11-22T12:00:00Z');
const T = NOW.getTime() / 1000;
const terms = {
  preApprovalExpiry: T + 60,
  authorizationExpiry: T + 3_600,
  refundExpiry: T + 7_200,
};
let block = 0n;

function event(type: StateEvent['type'], amount: bigint, txHash = `0x${block + 1n}`): StateEvent {
  block += 1n;
  return { type, amount, txHash, blockNumber: block, blockTime: NOW };
}

function action(
  kind: StateAction['kind'],
  amount: bigint,
  status: StateAction['status'],
  txHash: string | null = null,
): StateAction {
  return { kind, amount, status, txHash, createdAt: NOW };
}

const state = (events: StateEvent[], actions: StateAction[] = [], now = NOW) =>
  commerceState({ terms, events, actions, now });

describe('commerceState', () => {
  it('is PENDING with nothing, EXPIRED once the pre-approval passed, AUTHORIZING in flight', () => {
    expect(state([]).status).toBe('PENDING');
    expect(state([], [], new Date((T + 60) * 1000)).status).toBe('EXPIRED');
    expect(state([], [action('authorize', 50n, 'pending')]).status).toBe('AUTHORIZING');
    expect(state([], [action('authorize', 50n, 'failed', '0xa1')]).status).toBe('FAILED');
    // Refused before it was sent: nothing happened to the payment.
    expect(state([], [action('authorize', 50n, 'failed')]).status).toBe('PENDING');
  });

  it('refuses a void while a capture is in flight, and a capture while a void is', () => {
    const authorized = [event('authorized', 50n)];
    const capturing = state(authorized, [action('capture', 20n, 'sent', '0xc1')]);
    expect(capturing).toMatchObject({ capturing: true, capturable: 30n, canVoid: false });
    expect(() => checkVoid(capturing)).toThrow(/a capture in flight/);
    const voiding = state(authorized, [action('void', 0n, 'pending')]);
    expect(voiding).toMatchObject({ voiding: true, canCapture: false });
  });

  it('follows authorize → partial captures → refunds, with the amounts and what is possible', () => {
    const authorized = state([event('authorized', 50n)]);
    expect(authorized).toMatchObject({
      status: 'AUTHORIZED',
      held: 50n,
      capturable: 50n,
      refundable: 0n,
      canCapture: true,
      canVoid: true,
      canRefund: false,
    });
    const events = [event('authorized', 50n), event('captured', 30n)];
    expect(state(events)).toMatchObject({
      status: 'PAID',
      captured: 30n,
      capturable: 20n,
      refundable: 30n,
      canRefund: true,
    });
    events.push(event('refunded', 10n));
    expect(state(events)).toMatchObject({
      status: 'PARTIALLY_REFUNDED',
      refunded: 10n,
      refundable: 20n,
    });
    events.push(event('voided', 20n));
    expect(state(events)).toMatchObject({
      status: 'PARTIALLY_REFUNDED',
      held: 0n,
      voided: 20n,
      canCapture: false,
      canVoid: false,
    });
    events.push(event('refunded', 20n));
    expect(state(events)).toMatchObject({ status: 'REFUNDED', refundable: 0n, canRefund: false });
  });

  it('reserves in-flight amounts and counts confirmed actions until their event is detected', () => {
    const events = [event('authorized', 50n)];
    const flying = state(events, [action('capture', 30n, 'sent', '0xaa')]);
    expect(flying).toMatchObject({ status: 'CAPTURING', captured: 0n, capturable: 20n });
    const confirmed = state(events, [action('capture', 30n, 'confirmed', '0xaa')]);
    expect(confirmed).toMatchObject({ status: 'PAID', captured: 30n, capturable: 20n });
    const detected = state(
      [...events, event('captured', 30n, '0xAA')],
      [action('capture', 30n, 'confirmed', '0xaa')],
    );
    expect(detected).toMatchObject({ status: 'PAID', captured: 30n, capturable: 20n });
    const failed = state(events, [action('capture', 30n, 'failed', '0xbb')]);
    expect(failed).toMatchObject({ status: 'AUTHORIZED', capturable: 50n });
    const voiding = state(events, [action('void', 0n, 'pending')]);
    expect(voiding).toMatchObject({ status: 'VOIDING', voiding: true, canCapture: false });
    const voided = state(events, [action('void', 0n, 'confirmed', '0xcc')]);
    expect(voided).toMatchObject({ status: 'VOIDED', voided: 50n, held: 0n });
  });

  it('is VOIDED or RECLAIMED before any capture, EXPIRED when held past the authorization', () => {
    expect(state([event('authorized', 50n), event('voided', 50n)]).status).toBe('VOIDED');
    const late = new Date((T + 3_600) * 1000);
    const held = state([event('authorized', 50n)], [], late);
    expect(held).toMatchObject({ status: 'EXPIRED', canCapture: false, canVoid: true });
    expect(state([event('authorized', 50n), event('reclaimed', 50n)], [], late).status).toBe(
      'RECLAIMED',
    );
    expect(state([event('charged', 50n)])).toMatchObject({ status: 'PAID', captured: 50n });
    const afterRefundWindow = new Date((T + 7_200) * 1000);
    const paid = [event('authorized', 50n), event('captured', 50n)];
    expect(state(paid, [], afterRefundWindow).canRefund).toBe(false);
  });
});
