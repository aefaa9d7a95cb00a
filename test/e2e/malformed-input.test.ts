import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { createTenant, type Tenant } from '../fixtures.ts';

/**
 * The inputs that once reached a 500 (a NUL byte in a path segment, a query value and a body
 * string; a lone surrogate in customerInfo; offset=1e30 and page=1e30), and the HTTP parser's
 * own refusals, which must still answer our envelope with a request id.
 */

const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const UNSTORABLE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

describe('malformed input', () => {
  let t: TestApp;
  let tenant: Tenant;
  let orchestratorKey: string;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db);
    orchestratorKey = (await createOrchestrator(t.db, 'Partner')).orchestratorKey;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  const headers = () => ({ 'x-api-key': tenant.apiKey });
  function expectValidation(
    res: { statusCode: number; json(): unknown; headers: Record<string, unknown> },
    field: string,
    message: string,
  ) {
    expect(res.statusCode).toBe(400);
    expect(res.headers['x-request-id']).toBeTypeOf('string');
    expect(res.json()).toEqual({
      statusCode: 400,
      message: 'Validation failed',
      error: 'Bad Request',
      code: 'validation_failed',
      errors: [{ field, message }],
    });
  }
  const createRequest = (extra: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: headers(),
      payload: {
        amount: '1',
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
        payee: PAYEE,
        ...extra,
      },
    });

  it('answers 400 for a NUL byte in a path segment', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/request/01ab%00cd',
      headers: headers(),
    });
    expectValidation(res, 'requestId', UNSTORABLE);
  });

  it('answers 400 for a NUL byte in a query value', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/request?walletAddress=0x12%0034',
      headers: headers(),
    });
    expectValidation(res, 'walletAddress', UNSTORABLE);
  });

  it('answers 400 for a NUL byte in a body string, and writes nothing', async () => {
    const res = await createRequest({ reference: 'order\u00007' });
    expectValidation(res, 'reference', UNSTORABLE);
    const list = await t.app.inject({ method: 'GET', url: '/v2/request', headers: headers() });
    expect(list.json().requests).toEqual([]);
  });

  it('answers 400 for a lone surrogate in customerInfo', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: { ...headers(), 'content-type': 'application/json' },
      // A raw JSON escape: JSON.stringify would never write a lone surrogate this way.
      payload:
        '{"amount":"1","invoiceCurrency":"USDC-base","paymentCurrency":"USDC-base","payee":"' +
        PAYEE +
        '","customerInfo":{"firstName":"Ad\\ud800a"}}',
    });
    expectValidation(res, 'customerInfo.firstName', UNSTORABLE);
  });

  it('answers 400 for offset=1e30', async () => {
    for (const url of ['/v2/request?offset=1e30', '/v2/payments?requestId=x&offset=1e30']) {
      const res = await t.app.inject({ method: 'GET', url, headers: headers() });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().errors, url).toEqual([
        { field: 'offset', message: expect.stringMatching(/^must be <= \d+/) },
      ]);
    }
  });

  it('answers 400 for page=1e30', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/orchestrators/client-ids?page=1e30',
      headers: { 'x-orchestrator-key': orchestratorKey },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'page', message: 'must be <= 10000' }]);
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: { ...headers(), 'content-type': 'text/plain' },
      payload: 'amount=1',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe('unsupported_media_type');
  });

  it('echoes at most 128 characters of a field name the caller made up', async () => {
    const name = 'x'.repeat(15_000);
    // The one body that refuses unknown fields, as the reference's schema does.
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/multicall-payouts',
      headers: headers(),
      payload: { childTokens: ['a', 'b'], [name]: 1 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: `${'x'.repeat(128)}…`, message: 'is not allowed' },
    ]);
    expect(res.body.length).toBeLessThan(1_000);
  });

  it('answers 414 and a malformed URL with our envelope and a request id', async () => {
    const long = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${'a'.repeat(300)}`,
      headers: headers(),
    });
    expect(long.statusCode).toBe(414);
    expect(long.headers['x-request-id']).toBeTypeOf('string');
    expect(long.json().code).toBe('uri_too_long');
    const bad = await t.app.inject({
      method: 'GET',
      url: '/v2/request/%E0%A4%A',
      headers: headers(),
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['x-request-id']).toBeTypeOf('string');
    expect(bad.json().code).toBe('bad_url');
  });

  /** Sends raw bytes to the listening server and reads the whole answer. */
  function raw(bytes: string): Promise<{ status: number; headers: string; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [head = '', body = ''] = text.split('\r\n\r\n');
        resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body });
      });
      socket.end(bytes, 'latin1');
    });
  }

  it.each([
    ['bytes a request line may not hold', 'GET /v2/re\u0001quest HTTP/1.1\r\nHost: x\r\n\r\n'],
    [
      'a body framed two ways',
      'POST /v2/request HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    ['a NUL byte in a header', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Api-Key: a\u0000b\r\n\r\n'],
  ])(
    'answers the HTTP parser’s refusal of %s with our envelope and a request id',
    async (_name, bytes) => {
      const answer = await raw(bytes);
      expect(answer.status).toBe(400);
      expect(answer.headers).toMatch(/\r\nx-request-id: [0-9a-z]{26}\r\n/);
      expect(JSON.parse(answer.body)).toMatchObject({
        statusCode: 400,
        error: 'Bad Request',
        code: 'bad_request',
        message: expect.stringMatching(/^Malformed HTTP request \(HPE_/),
      });
    },
  );

  it.each([
    ['a request without Host', 'GET /healthz HTTP/1.1\r\n\r\n', 400, 'bad_request'],
    [
      'an Expect it cannot meet',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\n\r\n',
      417,
      'expectation_failed',
    ],
    [
      'CONNECT',
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      405,
      'method_not_allowed',
    ],
  ])('answers %s in our envelope with a request id', async (_name, bytes, status, code) => {
    const answer = await raw(bytes);
    expect(answer.status).toBe(status);
    expect(answer.headers).toMatch(/\r\nx-request-id: [0-9a-z._:-]+\r\n/);
    expect(JSON.parse(answer.body)).toMatchObject({ statusCode: status, code });
  });

  it('answers headers too large with 431 in our envelope', async () => {
    const answer = await raw(
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toMatchObject({ statusCode: 431, code: 'headers_too_large' });
  });
});
