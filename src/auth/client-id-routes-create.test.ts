import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  a,
  created,
  invalid,
  OTHER_WALLET,
  refused,
  SHOP,
  START,
  send,
  setupClientIdApp,
  TRON_FEE,
  t,
  WALLET,
} from '../../test/client-ids.ts';
import { clientIds } from '../db/schema.ts';

/**
 * Creating client IDs on `/v2/client-ids` (API key) and `/v1/client-ids` (session): what is
 * written, what is refused with nothing written (test/client-ids.ts).
 */

setupClientIdApp();

describe('POST /v2/client-ids', () => {
  it('creates a browser client ID with every setting, normalised, and answers 201', async () => {
    t.clock.set(START);
    const res = await send('POST', '/v2/client-ids', a.apiKey, {
      label: '  Web shop  ',
      allowedDomains: ['https://Shop.Example/', SHOP, 'http://localhost:3000'],
      feePercentage: '02.50',
      feeAddress: WALLET.toLowerCase(),
      operatorWalletAddress: OTHER_WALLET.toLowerCase(),
      defaultPreApprovalExpiry: 3600,
      defaultAuthorizationExpiry: 600,
      rateLimitPerMinute: 600,
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      clientId: expect.stringMatching(/^cli_[A-Za-z0-9_-]{32}$/),
      label: 'Web shop',
      allowedDomains: [SHOP, 'http://localhost:3000'],
      feePercentage: '2.5',
      feeAddress: WALLET,
      operatorWalletAddress: OTHER_WALLET,
      defaultPreApprovalExpiry: 3600,
      defaultAuthorizationExpiry: 600,
      rateLimitPerMinute: 600,
      status: 'active',
      createdAt: START.toISOString(),
    });
    const [row] = await t.db.select().from(clientIds).where(eq(clientIds.id, body.id));
    expect(row).toMatchObject({
      accountId: a.accountId,
      clientId: body.clientId,
      feePercentage: '2.50',
      rateLimitPerMinute: 600,
      payeeDestinationId: null,
    });
  });

  it('leaves every setting null when only label and domains are sent, and takes null as unset', async () => {
    const body = await created('/v2/client-ids', a.apiKey, {
      label: 'Plain',
      allowedDomains: [SHOP],
      feePercentage: null,
      rateLimitPerMinute: null,
    });
    expect(body).toMatchObject({
      feePercentage: null,
      feeAddress: null,
      operatorWalletAddress: null,
      defaultPreApprovalExpiry: null,
      defaultAuthorizationExpiry: null,
      rateLimitPerMinute: null,
    });
  });

  it('accepts fee percentages 0, 100 and 99.99, a Tron fee address, and every rate-limit tier', async () => {
    for (const [feePercentage, expected] of [
      ['0', '0'],
      ['100', '100'],
      ['99.99', '99.99'],
      ['0.5', '0.5'],
      ['100.00', '100'],
    ]) {
      const body = await created('/v2/client-ids', a.apiKey, {
        label: 'Fees',
        allowedDomains: [SHOP],
        feePercentage,
        feeAddress: TRON_FEE,
      });
      expect(body).toMatchObject({ feePercentage: expected, feeAddress: TRON_FEE });
    }
    for (const rateLimitPerMinute of [120, 300, 600, 1200]) {
      const body = await created('/v2/client-ids', a.apiKey, {
        label: 'Tier',
        allowedDomains: [SHOP],
        rateLimitPerMinute,
      });
      expect(body.rateLimitPerMinute).toBe(rateLimitPerMinute);
    }
  });

  const post = (payload: object): InjectOptions => ({
    method: 'POST',
    url: '/v2/client-ids',
    headers: a.apiKey,
    payload,
  });
  const base = { label: 'Shop', allowedDomains: [SHOP] };

  it.each([
    ['no label', { allowedDomains: [SHOP] }, { field: 'label', message: 'is required' }],
    [
      'a blank label',
      { ...base, label: '   ' },
      { field: 'label', message: 'must be 1 to 100 characters' },
    ],
    [
      'a 101-character label',
      { ...base, label: 'x'.repeat(101) },
      { field: 'label', message: 'must be 1 to 100 characters' },
    ],
    ['no allowedDomains', { label: 'Shop' }, { field: 'allowedDomains', message: 'is required' }],
    [
      'empty allowedDomains',
      { ...base, allowedDomains: [] },
      { field: 'allowedDomains', message: 'must contain at least 1 origin' },
    ],
    [
      'null allowedDomains',
      { ...base, allowedDomains: null },
      { field: 'allowedDomains', message: 'must be array' },
    ],
    [
      '11 allowedDomains',
      { ...base, allowedDomains: Array.from({ length: 11 }, (_, i) => `https://s${i}.example`) },
      { field: 'allowedDomains', message: 'must contain at most 10 origins' },
    ],
    [
      'an http origin',
      { ...base, allowedDomains: ['http://shop.example'] },
      {
        field: 'allowedDomains[0]',
        message: 'must use https; http is allowed only for localhost, 127.0.0.1 and [::1]',
      },
    ],
    [
      'an origin with a path',
      { ...base, allowedDomains: [SHOP, 'https://shop.example/pay'] },
      { field: 'allowedDomains[1]', message: 'must not contain a path, query or fragment' },
    ],
    [
      'a wildcard origin',
      { ...base, allowedDomains: ['https://*.shop.example'] },
      { field: 'allowedDomains[0]', message: 'must not contain wildcards' },
    ],
    [
      'a non-URL origin',
      { ...base, allowedDomains: ['shop.example'] },
      { field: 'allowedDomains[0]', message: 'must be an origin such as https://shop.example' },
    ],
    [
      'feePercentage 100.01',
      { ...base, feePercentage: '100.01', feeAddress: WALLET },
      { field: 'feePercentage', message: 'must be a number from 0 to 100 with at most 2 decimals' },
    ],
    [
      'feePercentage with 3 decimals',
      { ...base, feePercentage: '1.234', feeAddress: WALLET },
      { field: 'feePercentage', message: 'must be a number from 0 to 100 with at most 2 decimals' },
    ],
    [
      'a negative feePercentage',
      { ...base, feePercentage: '-1', feeAddress: WALLET },
      { field: 'feePercentage', message: 'must be a number from 0 to 100 with at most 2 decimals' },
    ],
    [
      'feePercentage in exponent form',
      { ...base, feePercentage: '1e1', feeAddress: WALLET },
      { field: 'feePercentage', message: 'must be a number from 0 to 100 with at most 2 decimals' },
    ],
    [
      'feePercentage as a JSON number',
      { ...base, feePercentage: 1.5, feeAddress: WALLET },
      { field: 'feePercentage', message: 'must be string,null' },
    ],
    [
      'feePercentage without feeAddress',
      { ...base, feePercentage: '1' },
      { field: 'feeAddress', message: 'is required when feePercentage is set' },
    ],
    [
      'feePercentage "0" without feeAddress',
      { ...base, feePercentage: '0' },
      { field: 'feeAddress', message: 'is required when feePercentage is set' },
    ],
    [
      'a bad feeAddress',
      { ...base, feePercentage: '1', feeAddress: '0x1234' },
      {
        field: 'feeAddress',
        message: 'must be an EVM address (0x followed by 40 hex digits) or a Tron address (T…)',
      },
    ],
    [
      'a Tron operatorWalletAddress',
      { ...base, operatorWalletAddress: TRON_FEE },
      {
        field: 'operatorWalletAddress',
        message: 'must be an EVM address (0x followed by 40 hex digits)',
      },
    ],
    [
      'defaultPreApprovalExpiry 0',
      { ...base, defaultPreApprovalExpiry: 0 },
      { field: 'defaultPreApprovalExpiry', message: 'must be >= 1' },
    ],
    [
      'defaultAuthorizationExpiry -5',
      { ...base, defaultAuthorizationExpiry: -5 },
      { field: 'defaultAuthorizationExpiry', message: 'must be >= 1' },
    ],
    [
      'a fractional expiry',
      { ...base, defaultPreApprovalExpiry: 1.5 },
      { field: 'defaultPreApprovalExpiry', message: 'must be integer,null' },
    ],
    [
      'an expiry as a string',
      { ...base, defaultAuthorizationExpiry: '60' },
      { field: 'defaultAuthorizationExpiry', message: 'must be integer,null' },
    ],
    [
      'an expiry past the column',
      { ...base, defaultPreApprovalExpiry: 2_147_483_648 },
      { field: 'defaultPreApprovalExpiry', message: 'must be <= 2147483647' },
    ],
    [
      'rateLimitPerMinute 150',
      { ...base, rateLimitPerMinute: 150 },
      {
        field: 'rateLimitPerMinute',
        message: 'must be one of 120, 300, 600, 1200, or null for the default tier',
      },
    ],
  ])('answers 400 for %s and writes nothing', async (_name, payload, error) => {
    await refused(post(payload), 400, invalid(error));
  });

  it('names every bad field in one answer', async () => {
    await refused(
      post({
        label: '',
        allowedDomains: ['http://shop.example'],
        feePercentage: '101',
        operatorWalletAddress: 'nope',
        rateLimitPerMinute: 1,
      }),
      400,
      invalid(
        { field: 'label', message: 'must be 1 to 100 characters' },
        {
          field: 'allowedDomains[0]',
          message: 'must use https; http is allowed only for localhost, 127.0.0.1 and [::1]',
        },
        {
          field: 'feePercentage',
          message: 'must be a number from 0 to 100 with at most 2 decimals',
        },
        { field: 'feeAddress', message: 'is required when feePercentage is set' },
        {
          field: 'operatorWalletAddress',
          message: 'must be an EVM address (0x followed by 40 hex digits)',
        },
        {
          field: 'rateLimitPerMinute',
          message: 'must be one of 120, 300, 600, 1200, or null for the default tier',
        },
      ),
    );
  });
});
