import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, SHOP_ORIGIN, type Tenant } from '../../test/fixtures.ts';
import { readTokenListFile } from '../../test/token-list.ts';

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db);
});
afterAll(() => t.close());

async function get(url: string) {
  const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': tenant.apiKey } });
  return { status: res.statusCode, body: res.json() };
}

const USDC_BASE = {
  id: 'USDC-base',
  name: 'USD Coin',
  symbol: 'USDC',
  decimals: 6,
  address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  network: 'base',
  type: 'ERC20',
  hash: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  chainId: 8453,
};

/** Curated currencies the token list lacks: served after its entries. */
const CURATED_EXTRAS = ['USDT0-arbitrum-one', 'USDT0-optimism', 'USDT0-matic', 'TRX-tron'];

describe('GET /v2/currencies serves Request’s token list', () => {
  const file = readTokenListFile();

  it('answers every entry of the file, field for field and in its order, then the curated currencies it lacks', async () => {
    const { status, body } = await get('/v2/currencies');
    expect(status).toBe(200);
    expect(body.slice(0, file.tokens.length)).toEqual(file.tokens);
    const extras = body.slice(file.tokens.length);
    expect(extras.map((c: { id: string }) => c.id)).toEqual(CURATED_EXTRAS);
    for (const extra of extras) expect(extra).toEqual(t.chains.currency(extra.id));
    expect(body.some((c: { network: string }) => c.network === 'sandbox')).toBe(false);
  });

  it('finds each entry by its id, and answers it as the file writes it', async () => {
    for (const entry of file.tokens) {
      const { status, body } = await get(`/v2/currencies?id=${encodeURIComponent(entry.id)}`);
      expect(status, entry.id).toBe(200);
      expect(body).toEqual(entry);
    }
  });

  it('keeps every id and alias we accepted before: each reaches the same currency', async () => {
    const curated = t.chains.currencies.filter((currency) => t.chains.isCurated(currency));
    expect(curated.length).toBeGreaterThan(30);
    for (const currency of curated) {
      const { status, body } = await get(`/v2/currencies?id=${currency.id}`);
      expect(status, currency.id).toBe(200);
      expect(body, currency.id).toMatchObject({
        network: currency.network,
        decimals: currency.decimals,
        chainId: currency.chainId,
        hash: expect.stringMatching(new RegExp(`^${currency.hash}$`, 'i')),
      });
    }
    for (const alias of ['USDC-matic', 'usdcn-MATIC', 'USDC-sepolia', 'POL-matic', 'ETH-base']) {
      expect((await get(`/v2/currencies?id=${alias}`)).status, alias).toBe(200);
    }
  });

  it('answers without a credential, checks one that is sent, and answers the same under /v1', async () => {
    const url = '/v2/currencies?network=base&symbol=USDC&firstOnly=true';
    const anonymous = await t.app.inject({ method: 'GET', url });
    expect(anonymous.statusCode).toBe(200);
    expect(anonymous.json()).toEqual(USDC_BASE);
    const badKey = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': 'nope' } });
    expect(badKey.statusCode).toBe(401);
    const v1 = await t.app.inject({ method: 'GET', url: url.replace('/v2/', '/v1/') });
    expect(v1.statusCode).toBe(200);
    expect(v1.body).toBe(anonymous.body);
    const routes = await t.app.inject({
      method: 'GET',
      url: '/v1/currencies/EUR/conversion-routes?network=matic',
    });
    expect(routes.statusCode).toBe(200);
    expect(routes.json()).toEqual(
      (await get('/v2/currencies/EUR/conversion-routes?network=matic')).body,
    );
  });
});

describe('GET /v2/currencies', () => {
  it('returns one object for network + symbol + firstOnly=true', async () => {
    const { status, body } = await get('/v2/currencies?network=base&symbol=USDC&firstOnly=true');
    expect(status).toBe(200);
    expect(body).toEqual(USDC_BASE);
  });

  it('returns a list for network + symbol + firstOnly=false', async () => {
    const { status, body } = await get('/v2/currencies?network=base&symbol=USDC&firstOnly=false');
    expect(status).toBe(200);
    expect(body).toEqual([USDC_BASE]);
  });

  it('returns one object for id; our ids reach the token list’s entry', async () => {
    expect((await get('/v2/currencies?id=USDC-base')).body).toEqual(USDC_BASE);
    expect((await get('/v2/currencies?id=usdc-base')).body).toEqual(USDC_BASE);
    expect((await get('/v2/currencies?id=USDC-matic')).body).toMatchObject({ id: 'USDCn-matic' });
    expect((await get('/v2/currencies?id=USDT-sepolia')).body).toMatchObject({
      id: 'fUSDT-sepolia',
    });
    expect((await get('/v2/currencies?id=ETH-sepolia')).body).toMatchObject({
      id: 'ETH-sepolia-sepolia',
      type: 'ETH',
    });
  });

  it('filters by network alone', async () => {
    const { body } = await get('/v2/currencies?network=arbitrum-one');
    expect(body.map((c: { id: string }) => c.id)).toEqual([
      'AETH-arbitrum-one',
      'USDC-arbitrum-one',
      'USDT-arbitrum-one',
      'DAI-arbitrum-one',
      'USDS-arbitrum-one',
      'USDT0-arbitrum-one',
    ]);
  });

  it('filters by symbol alone, across networks, ignoring case', async () => {
    const { body } = await get('/v2/currencies?symbol=usdt0');
    expect(body.map((c: { id: string }) => c.id)).toEqual([
      'USDT0-arbitrum-one',
      'USDT0-optimism',
      'USDT0-matic',
    ]);
  });

  it('lists fiat under network=fiat', async () => {
    const { body } = await get('/v2/currencies?network=fiat');
    expect(body).toHaveLength(179);
    const ids = body.map((c: { id: string }) => c.id);
    expect(ids).toEqual(expect.arrayContaining(['USD', 'EUR', 'GBP', 'CNY', 'JPY', 'AED']));
    expect(body[0]).toMatchObject({ id: 'AED', type: 'ISO4217', chainId: 0, decimals: 2 });
  });

  it('serves Tron TRC-20 tokens with base58 addresses', async () => {
    const { body } = await get('/v2/currencies?network=tron&symbol=USDT&firstOnly=true');
    expect(body).toMatchObject({
      id: 'USDT-tron',
      type: 'TRC20',
      address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      chainId: 728126428,
      decimals: 6,
    });
  });

  it.each([
    ['/v2/currencies?network=base&symbol=FAU&firstOnly=true'],
    ['/v2/currencies?network=base&symbol=FAU'],
    ['/v2/currencies?symbol=NOPE'],
    ['/v2/currencies?id=NOPE-base'],
    ['/v2/currencies?id=USDC-base&network=matic'],
  ])('answers 404 Token not found when nothing matches (%s)', async (url) => {
    const { status, body } = await get(url);
    expect(status).toBe(404);
    expect(body).toEqual({
      statusCode: 404,
      message: 'Token not found',
      error: 'Not Found',
      code: 'token_not_found',
    });
  });

  it.each([
    [
      '/v2/currencies?network=base&firstOnly=true',
      'can only be used together with network and symbol',
    ],
    [
      '/v2/currencies?symbol=USDC&firstOnly=true',
      'can only be used together with network and symbol',
    ],
    ['/v2/currencies?firstOnly=false', 'can only be used together with network and symbol'],
    ['/v2/currencies?network=base&symbol=USDC&firstOnly=yes', "must be 'true' or 'false'"],
    ['/v2/currencies?network=base&symbol=USDC&firstOnly=TRUE', "must be 'true' or 'false'"],
  ])('answers 400 for a misused firstOnly (%s)', async (url, message) => {
    const { status, body } = await get(url);
    expect(status).toBe(400);
    expect(body).toMatchObject({
      message: 'Validation failed',
      error: 'Bad Request',
      errors: [{ field: 'firstOnly', message }],
    });
  });

  it('answers 400 for an unknown network and ignores unknown query parameters', async () => {
    const unknownNetwork = await get('/v2/currencies?network=polygon');
    expect(unknownNetwork.status).toBe(400);
    expect(unknownNetwork.body.errors[0].field).toBe('network');
    const unknownParam = await get('/v2/currencies?chain=base');
    expect(unknownParam).toEqual(await get('/v2/currencies'));
  });

  it('answers each lookup on its own, whatever was asked before', async () => {
    // Answers are kept per lookup: a parameter sent as the text "undefined" is not one left out.
    expect((await get('/v2/currencies')).status).toBe(200);
    expect((await get('/v2/currencies?firstOnly=undefined')).status).toBe(400);
    expect((await get('/v2/currencies?network=undefined')).status).toBe(400);
    expect((await get('/v2/currencies?id=undefined')).status).toBe(404);
    expect((await get('/v2/currencies?symbol=undefined')).status).toBe(404);
    expect((await get('/v2/currencies?id=USDC-base')).body).toEqual(USDC_BASE);
    expect((await get('/v2/currencies?id=usdc-base')).body).toEqual(
      (await get('/v2/currencies?id=USDC-base')).body,
    );
  });

  it('accepts a client ID from its origin', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/currencies?network=base&symbol=USDC&firstOnly=true',
      headers: { 'x-client-id': tenant.browserClientId, origin: SHOP_ORIGIN },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(USDC_BASE);
  });
});

describe('GET /v2/currencies/{currencyId}/conversion-routes', () => {
  it('lists the payment currencies for a fiat invoice on one network', async () => {
    const { status, body } = await get('/v2/currencies/EUR/conversion-routes?network=matic');
    expect(status).toBe(200);
    expect(body.currencyId).toBe('EUR');
    expect(body.network).toBe('matic');
    expect(body.networks).toBeUndefined();
    expect(body.conversionRoutes.map((c: { id: string }) => c.id)).toEqual([
      'USDCn-matic',
      'USDT-matic',
      'DAI-matic',
    ]);
    // Each route is the currency as GET /v2/currencies serves it.
    for (const route of body.conversionRoutes) {
      expect(route).toEqual((await get(`/v2/currencies?id=${route.id}`)).body);
    }
  });

  it('follows the aggregator graph: Base converts only USD, Optimism has no GBP', async () => {
    expect(
      (await get('/v2/currencies/USD/conversion-routes?network=base')).body.conversionRoutes,
    ).toEqual([USDC_BASE]);
    expect(
      (await get('/v2/currencies/EUR/conversion-routes?network=base')).body.conversionRoutes,
    ).toEqual([]);
    expect(
      (await get('/v2/currencies/GBP/conversion-routes?network=optimism')).body.conversionRoutes,
    ).toEqual([]);
    const sepolia = await get('/v2/currencies/usd/conversion-routes?network=sepolia');
    expect(sepolia.body.currencyId).toBe('USD');
    expect(sepolia.body.conversionRoutes.map((c: { id: string }) => c.id)).toEqual([
      'FAU-sepolia',
      'fUSDT-sepolia',
    ]);
  });

  it('takes a comma-separated networks list and answers with networks', async () => {
    const { body } = await get('/v2/currencies/GBP/conversion-routes?networks=optimism,bsc');
    expect(body.networks).toEqual(['optimism', 'bsc']);
    expect(body.network).toBeUndefined();
    expect(body.conversionRoutes.map((c: { id: string }) => c.id)).toEqual([
      'USDC-bsc',
      'USDT-bsc',
      'DAI-bsc',
    ]);
  });

  it('covers every network when neither parameter is given; Tron has no conversion', async () => {
    const { body } = await get('/v2/currencies/JPY/conversion-routes');
    expect(body.networks).toHaveLength(8);
    const networks = new Set(body.conversionRoutes.map((c: { network: string }) => c.network));
    expect([...networks]).toEqual(['mainnet', 'arbitrum-one', 'optimism', 'matic', 'bsc']);
  });

  it('has no routes for a crypto invoice currency', async () => {
    const { status, body } = await get('/v2/currencies/USDC-base/conversion-routes?network=base');
    expect(status).toBe(200);
    expect(body.conversionRoutes).toEqual([]);
  });

  it('finds every listed currency; only our fiat codes on our networks have routes', async () => {
    const aed = await get('/v2/currencies/AED/conversion-routes');
    expect(aed.status).toBe(200);
    expect(aed.body).toMatchObject({ currencyId: 'AED', conversionRoutes: [] });
    const fantom = await get('/v2/currencies/USD/conversion-routes?network=fantom');
    expect(fantom.status).toBe(200);
    expect(fantom.body).toEqual({ currencyId: 'USD', network: 'fantom', conversionRoutes: [] });
  });

  it('answers 404 for an unknown currency and 400 for bad network parameters', async () => {
    const unknown = await get('/v2/currencies/XYZ/conversion-routes');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('Currency not found');
    expect((await get('/v2/currencies/USD/conversion-routes?network=polygon')).status).toBe(400);
    expect((await get('/v2/currencies/USD/conversion-routes?networks=base,polygon')).status).toBe(
      400,
    );
    const both = await get('/v2/currencies/USD/conversion-routes?network=base&networks=base');
    expect(both.status).toBe(400);
    expect(both.body.errors).toEqual([
      { field: 'networks', message: 'cannot be combined with network' },
    ]);
  });
});
