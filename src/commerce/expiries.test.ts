import { describe, expect, it } from 'vitest';
import { ValidationError } from '../base/errors.ts';
import { resolveExpiries } from './expiries.ts';

const NOW = new Date('2026-11-22T12:00:00Z');
const T = NOW.getTime() / 1000;
const NO_DEFAULTS = { defaultPreApprovalExpiry: null, defaultAuthorizationExpiry: null };

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  throw new Error('not refused');
}

describe('resolveExpiries', () => {
  it('takes the documented defaults: 1 h, 7 d, and 30 d after the authorization', () => {
    expect(resolveExpiries({}, null, NOW)).toEqual({
      preApprovalExpiry: T + 3_600,
      authorizationExpiry: T + 7 * 86_400,
      refundExpiry: T + 37 * 86_400,
    });
    expect(resolveExpiries({}, NO_DEFAULTS, NOW).preApprovalExpiry).toBe(T + 3_600);
  });

  it('takes the client ID’s setting over the body, then the body, then ours, field by field', () => {
    const client = { defaultPreApprovalExpiry: 600, defaultAuthorizationExpiry: 86_400 };
    expect(resolveExpiries({}, client, NOW)).toEqual({
      preApprovalExpiry: T + 600,
      authorizationExpiry: T + 86_400,
      refundExpiry: T + 31 * 86_400,
    });
    // The client ID's settings override what the body sends (api-facts §8.1).
    expect(
      resolveExpiries(
        { preApprovalExpiry: 60, authorizationExpiry: 120, refundExpiry: 180 * 86_400 },
        client,
        NOW,
      ),
    ).toEqual({
      preApprovalExpiry: T + 600,
      authorizationExpiry: T + 86_400,
      refundExpiry: T + 180 * 86_400,
    });
    // A field the client ID leaves unset comes from the body.
    const onlyAuthorization = {
      defaultPreApprovalExpiry: null,
      defaultAuthorizationExpiry: 86_400,
    };
    expect(resolveExpiries({ preApprovalExpiry: 60 }, onlyAuthorization, NOW)).toEqual({
      preApprovalExpiry: T + 60,
      authorizationExpiry: T + 86_400,
      refundExpiry: T + 31 * 86_400,
    });
    expect(
      resolveExpiries(
        { preApprovalExpiry: 60, authorizationExpiry: 120, refundExpiry: 180 },
        NO_DEFAULTS,
        NOW,
      ),
    ).toEqual({ preApprovalExpiry: T + 60, authorizationExpiry: T + 120, refundExpiry: T + 180 });
  });

  it('refuses expiries out of order, naming the field', () => {
    expect(
      refusal(() =>
        resolveExpiries({ preApprovalExpiry: 200, authorizationExpiry: 100 }, null, NOW),
      ),
    ).toMatchInlineSnapshot(`
      [
        {
          "field": "preApprovalExpiry",
          "message": "must not end after authorizationExpiry (200 s > 100 s)",
        },
      ]
    `);
    expect(
      refusal(() => resolveExpiries({ authorizationExpiry: 200, refundExpiry: 100 }, null, NOW)),
    ).toMatchInlineSnapshot(`
      [
        {
          "field": "refundExpiry",
          "message": "must not end before authorizationExpiry (100 s < 200 s)",
        },
      ]
    `);
  });

  it('refuses an expiry beyond uint48', () => {
    expect(
      refusal(() => resolveExpiries({ refundExpiry: 2 ** 48 }, null, NOW)),
    ).toMatchInlineSnapshot(`
      [
        {
          "field": "refundExpiry",
          "message": "ends after 281474976710655 (uint48), the latest expiry the escrow takes",
        },
      ]
    `);
  });
});
