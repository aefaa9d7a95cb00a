import { describe, expect, it } from 'vitest';
import { signTimed, verifyTimed } from './timed-signature.ts';

const SECRET = 'a-shared-callback-secret';
const BODY = '{"event_id":"evt_1","status":"approved"}';
const NOW = 1_800_000_000;

describe('timed callback signatures', () => {
  it('verify the body they sign, as text or bytes, within five minutes', () => {
    const header = signTimed(SECRET, NOW, BODY);
    expect(header).toMatch(/^t=1800000000,v1=[0-9a-f]{64}$/);
    expect(verifyTimed(SECRET, header, BODY, NOW)).toBe(true);
    expect(verifyTimed(SECRET, header, Buffer.from(BODY), NOW + 300)).toBe(true);
    expect(signTimed(SECRET, NOW, Buffer.from(BODY))).toBe(header);
  });

  it('refuse another body, another secret, a stale or future time and malformed headers', () => {
    const header = signTimed(SECRET, NOW, BODY);
    expect(verifyTimed(SECRET, header, `${BODY} `, NOW)).toBe(false);
    expect(verifyTimed('another-secret', header, BODY, NOW)).toBe(false);
    expect(verifyTimed(SECRET, header, BODY, NOW + 301)).toBe(false);
    expect(verifyTimed(SECRET, header, BODY, NOW - 301)).toBe(false);
    // The time is signed: moving it breaks the signature even within the tolerance.
    expect(verifyTimed(SECRET, header.replace('t=1800000000', 't=1800000001'), BODY, NOW)).toBe(
      false,
    );
    for (const bad of [undefined, '', 'v1=00', `t=${NOW}`, `t=x,v1=${'0'.repeat(64)}`])
      expect(verifyTimed(SECRET, bad, BODY, NOW)).toBe(false);
  });
});
