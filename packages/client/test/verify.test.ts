import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  DELIVERY_HEADER,
  deliveryHeaders,
  REFERENCE_HEADERS,
  SIGNATURE_HEADER,
  SIGNATURE_V2_HEADER,
  signV1,
  signV2,
  TIMESTAMP_HEADER,
} from '../../../src/webhooks/signature.ts';
import { DEFAULT_TOLERANCE_SECONDS, type VerifyInput, verifyWebhook } from '../src/verify.ts';

const SECRET = 'whsec_test-secret-for-verification';
const OTHER_SECRET = 'whsec_another-endpoints-secret';
const DELIVERY_ID = '01JDELIVERY0000000000000000';
const NOW = 1_795_000_000; // Unix seconds
// Non-ASCII on purpose: the signature covers bytes, so string and Buffer must agree.
const BODY = JSON.stringify({ event: 'payment.confirmed', amount: '12.5', payee: 'Zoë & Søn' });

/** The headers the dispatcher sends, both versions, signed at `timestamp`. */
function signedHeaders(
  body: string,
  secret = SECRET,
  timestamp = NOW,
): Record<string, string | undefined> {
  return {
    [SIGNATURE_HEADER]: signV1(body, secret),
    [SIGNATURE_V2_HEADER]: signV2(body, secret, timestamp),
    [TIMESTAMP_HEADER]: String(timestamp),
    [DELIVERY_HEADER]: DELIVERY_ID,
  };
}

function verify(input: Partial<VerifyInput> & Pick<VerifyInput, 'headers'>) {
  return verifyWebhook({ rawBody: BODY, secret: SECRET, now: NOW, ...input });
}

/** The same bytes with one of them changed. */
function flipOneByte(body: string): Buffer {
  const bytes = Buffer.from(body, 'utf8');
  const index = bytes.indexOf('12.5');
  bytes[index] = '3'.charCodeAt(0); // "12.5" -> "32.5"
  return bytes;
}

describe('verifyWebhook', () => {
  it('accepts a delivery signed with both versions, checking v2 and returning the delivery id', () => {
    expect(verify({ headers: signedHeaders(BODY) })).toEqual({
      ok: true,
      deliveryId: DELIVERY_ID,
      version: 'v2',
    });
  });

  it('checks the reference family alone, as the real service sends it', () => {
    const reference = {
      [REFERENCE_HEADERS.signature]: signV1(BODY, SECRET),
      [REFERENCE_HEADERS.delivery]: DELIVERY_ID,
    };
    expect(verify({ headers: reference })).toEqual({
      ok: true,
      deliveryId: DELIVERY_ID,
      version: 'v1',
    });
    const forged = { ...reference, [REFERENCE_HEADERS.signature]: signV1(BODY, OTHER_SECRET) };
    expect(verify({ headers: forged })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('signs both header families with the same values', () => {
    const headers = deliveryHeaders({
      body: BODY,
      secret: SECRET,
      deliveryId: DELIVERY_ID,
      retryCount: 2,
      test: true,
      timestamp: NOW,
    });
    expect(headers).toEqual({
      'x-request-network-signature': signV1(BODY, SECRET),
      'x-request-network-delivery': DELIVERY_ID,
      'x-request-network-retry-count': '2',
      'x-request-network-test': 'true',
      'x-service-signature': signV1(BODY, SECRET),
      'x-service-signature-v2': signV2(BODY, SECRET, NOW),
      'x-service-timestamp': String(NOW),
      'x-service-delivery': DELIVERY_ID,
      'x-service-retry-count': '2',
      'x-service-test': 'true',
    });
    const live = deliveryHeaders({
      body: BODY,
      secret: SECRET,
      deliveryId: DELIVERY_ID,
      retryCount: 0,
      test: false,
      timestamp: NOW,
    });
    expect(Object.keys(live).filter((name) => name.endsWith('-test'))).toEqual([]);
  });

  it('prefers v2 when its headers are present: a wrong v1 beside a good v2 passes', () => {
    const headers = { ...signedHeaders(BODY), [SIGNATURE_HEADER]: signV1(BODY, OTHER_SECRET) };
    expect(verify({ headers })).toMatchObject({ ok: true, version: 'v2' });
  });

  it('does not fall back to v1 when v2 is present and wrong', () => {
    const headers = {
      ...signedHeaders(BODY),
      [SIGNATURE_V2_HEADER]: signV2(BODY, OTHER_SECRET, NOW),
    };
    expect(verify({ headers })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('checks v1 when the v2 signature or its timestamp is absent', () => {
    const { [SIGNATURE_V2_HEADER]: _v2, ...withoutV2 } = signedHeaders(BODY);
    expect(verify({ headers: withoutV2 })).toEqual({
      ok: true,
      deliveryId: DELIVERY_ID,
      version: 'v1',
    });
    const { [TIMESTAMP_HEADER]: _ts, ...withoutTimestamp } = signedHeaders(BODY);
    expect(verify({ headers: withoutTimestamp })).toMatchObject({ ok: true, version: 'v1' });
    // v1 alone has no age: an old delivery still verifies (the reference API's scheme).
    const oldV1 = { [SIGNATURE_HEADER]: signV1(BODY, SECRET) };
    expect(verify({ headers: oldV1, now: NOW + 365 * 86_400 })).toEqual({
      ok: true,
      deliveryId: null,
      version: 'v1',
    });
  });

  it('refuses a body with one byte changed, under either version', () => {
    const tampered = flipOneByte(BODY);
    expect(tampered.length).toBe(Buffer.byteLength(BODY));
    expect(verify({ rawBody: tampered, headers: signedHeaders(BODY) })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    const v1Only = { [SIGNATURE_HEADER]: signV1(BODY, SECRET) };
    expect(verify({ rawBody: tampered, headers: v1Only })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(verify({ rawBody: tampered.toString('utf8'), headers: v1Only })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('refuses a body re-serialised with different spacing', () => {
    const reserialised = JSON.stringify(JSON.parse(BODY), null, 2);
    expect(verify({ rawBody: reserialised, headers: signedHeaders(BODY) })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('refuses the wrong secret, under either version', () => {
    expect(verify({ headers: signedHeaders(BODY), secret: OTHER_SECRET })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    const v1Only = { [SIGNATURE_HEADER]: signV1(BODY, SECRET) };
    expect(verify({ headers: v1Only, secret: OTHER_SECRET })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('refuses a v2 timestamp moved without re-signing', () => {
    const headers = { ...signedHeaders(BODY), [TIMESTAMP_HEADER]: String(NOW - 1) };
    expect(verify({ headers })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuses a v2 delivery older (or further ahead) than the tolerance as stale', () => {
    const signedAt = NOW - DEFAULT_TOLERANCE_SECONDS;
    expect(verify({ headers: signedHeaders(BODY, SECRET, signedAt) })).toMatchObject({ ok: true });
    expect(verify({ headers: signedHeaders(BODY, SECRET, signedAt - 1) })).toEqual({
      ok: false,
      reason: 'stale_timestamp',
    });
    expect(
      verify({ headers: signedHeaders(BODY, SECRET, NOW + DEFAULT_TOLERANCE_SECONDS + 1) }),
    ).toEqual({ ok: false, reason: 'stale_timestamp' });
    // A wider window admits it.
    expect(
      verify({ headers: signedHeaders(BODY, SECRET, signedAt - 1), toleranceSeconds: 600 }),
    ).toMatchObject({ ok: true, version: 'v2' });
    // A correct signature does not save a stale delivery, and v1 is not a way around the age.
    const stale = signedHeaders(BODY, SECRET, NOW - 3_600);
    expect(verify({ headers: stale })).toEqual({ ok: false, reason: 'stale_timestamp' });
  });

  it('refuses a timestamp that is not a number as stale', () => {
    const headers = { ...signedHeaders(BODY), [TIMESTAMP_HEADER]: 'yesterday' };
    expect(verify({ headers })).toEqual({ ok: false, reason: 'stale_timestamp' });
  });

  it('reports missing_signature when no signature header is present', () => {
    expect(verify({ headers: {} })).toEqual({ ok: false, reason: 'missing_signature' });
    expect(verify({ headers: { [DELIVERY_HEADER]: DELIVERY_ID } })).toEqual({
      ok: false,
      reason: 'missing_signature',
    });
    // A v2 signature without its timestamp cannot be checked, and there is no v1.
    expect(verify({ headers: { [SIGNATURE_V2_HEADER]: signV2(BODY, SECRET, NOW) } })).toEqual({
      ok: false,
      reason: 'missing_signature',
    });
  });

  it('refuses signatures that are not 64 hex characters without throwing', () => {
    for (const bad of ['', 'zz', signV1(BODY, SECRET).slice(0, 62), `${signV1(BODY, SECRET)}00`]) {
      expect(verify({ headers: { [SIGNATURE_HEADER]: bad } }), bad).toEqual({
        ok: false,
        reason: 'bad_signature',
      });
    }
  });

  it('verifies the same bytes given as a string or as a Buffer', () => {
    const headers = signedHeaders(BODY);
    expect(verify({ rawBody: BODY, headers })).toMatchObject({ ok: true });
    expect(verify({ rawBody: Buffer.from(BODY, 'utf8'), headers })).toMatchObject({ ok: true });
    const v1Only = { [SIGNATURE_HEADER]: signV1(BODY, SECRET) };
    expect(verify({ rawBody: Buffer.from(BODY, 'utf8'), headers: v1Only })).toMatchObject({
      ok: true,
      version: 'v1',
    });
  });

  it('takes the first value of a repeated header', () => {
    const headers = {
      ...signedHeaders(BODY),
      [SIGNATURE_V2_HEADER]: [signV2(BODY, SECRET, NOW), 'ff'.repeat(32)],
    };
    expect(verify({ headers })).toMatchObject({ ok: true, version: 'v2' });
  });

  it('finds headers whatever their case, as some frameworks keep the sender’s', () => {
    const canonical = Object.fromEntries(
      Object.entries(signedHeaders(BODY)).map(([name, value]) => [
        name.replace(
          /(^|-)([a-z])/g,
          (_m, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`,
        ),
        value,
      ]),
    );
    expect(Object.keys(canonical)).toContain('X-Service-Signature-V2');
    expect(verify({ headers: canonical })).toEqual({
      ok: true,
      deliveryId: DELIVERY_ID,
      version: 'v2',
    });
  });

  it('verifies a real request with the headers and raw body Node hands a receiver', async () => {
    const seen: ReturnType<typeof verifyWebhook>[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        // Node lower-cases incoming header names; pass them as they arrive.
        seen.push(
          verifyWebhook({ rawBody: Buffer.concat(chunks), headers: req.headers, secret: SECRET }),
        );
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const send = (body: string, headers: Record<string, string>) =>
      new Promise<void>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, method: 'POST', path: '/hooks', headers },
          (res) => res.resume().on('end', resolve),
        );
        req.on('error', reject);
        req.end(body);
      });
    try {
      const timestamp = Math.floor(Date.now() / 1000);
      const sentHeaders = {
        'Content-Type': 'application/json',
        'X-Service-Signature': signV1(BODY, SECRET),
        'X-Service-Signature-V2': signV2(BODY, SECRET, timestamp),
        'X-Service-Timestamp': String(timestamp),
        'X-Service-Delivery': DELIVERY_ID,
      };
      await send(BODY, sentHeaders);
      await send(flipOneByte(BODY).toString('utf8'), sentHeaders);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(seen).toEqual([
      { ok: true, deliveryId: DELIVERY_ID, version: 'v2' },
      { ok: false, reason: 'bad_signature' },
    ]);
  });
});
