import { createPublicClient, http } from 'viem';
import { describe, expect, it } from 'vitest';
import { LogCapture } from '../../test/app.ts';
import { freePort } from '../../test/process.ts';
import { createLogger, loggedUrl, scrubUrls } from './logger.ts';

/** What reaches the log: never a credential, even one inside a URL quoted by an error. */

describe('scrubUrls', () => {
  it.each([
    ['https://mainnet.infura.io/v3/0123abcd', 'https://mainnet.infura.io/…'],
    ['https://rpc.example/?apikey=s3cret', 'https://rpc.example/…'],
    ['wss://user:pa55@node.example:8546/ws', 'wss://node.example:8546/…'],
    ['postgres://payreq:pa55@db.internal:5432/payreq', 'postgres://db.internal:5432/…'],
    ['https://hooks.example.com', 'https://hooks.example.com'],
  ])('cuts %s to %s', (url, expected) => {
    expect(scrubUrls(`failed: ${url} did not answer`)).toBe(`failed: ${expected} did not answer`);
  });
});

describe('logged errors', () => {
  it('keep the message and stack of an RPC failure but not the key in its URL', async () => {
    const port = await freePort();
    const client = createPublicClient({
      transport: http(`http://rpcuser:rpcpass@127.0.0.1:${port}/v3/KEY0123456789`, {
        retryCount: 0,
      }),
    });
    const error = await client.getBlockNumber().catch((e: unknown) => e);
    // viem quotes the whole URL in its message; the log must not.
    expect(String((error as Error).message)).toContain('KEY0123456789');

    const logs = new LogCapture();
    createLogger('info', logs).warn({ err: error }, 'indexer pass failed; retrying');
    const text = logs.text();
    expect(text).not.toContain('KEY0123456789');
    expect(text).not.toContain('rpcpass');
    const [entry] = logs.entries();
    expect(entry?.msg).toBe('indexer pass failed; retrying');
    expect(entry?.err).toMatchObject({
      type: 'HttpRequestError',
      message: expect.stringContaining(`http://127.0.0.1:${port}/…`),
      stack: expect.stringContaining('HttpRequestError'),
    });
  });

  it('leave errors without URLs as they are', () => {
    const logs = new LogCapture();
    createLogger('info', logs).error({ err: new Error('disk full') }, 'boom');
    expect(logs.entries()[0]?.err).toMatchObject({ type: 'Error', message: 'disk full' });
  });
});

describe('redaction', () => {
  it('censors session tokens, cookies and wallet signatures wherever a log line carries them', () => {
    const token = 'ses_AAAAredactmeAAAA';
    const signature = `0x${'ab'.repeat(65)}`;
    const logs = new LogCapture();
    const logger = createLogger('info', logs);
    logger.info(
      {
        req: { headers: { cookie: `session_token=${token}`, authorization: `Bearer ${token}` } },
        res: { headers: { 'set-cookie': `session_token=${token}; HttpOnly` } },
        principal: { kind: 'session', sessionId: 's1', token },
      },
      'request',
    );
    logger.info({ body: { challengeId: 'c1', signature }, sessionToken: token }, 'sign-in');
    logger.info({ request: { principal: { token } }, signature }, 'nested');
    const text = logs.text();
    expect(text).not.toContain(token);
    expect(text).not.toContain(signature);
    const [request, signIn, nested] = logs.entries();
    expect(request).toMatchObject({
      req: { headers: { cookie: '[redacted]', authorization: '[redacted]' } },
      res: { headers: { 'set-cookie': '[redacted]' } },
      principal: { kind: 'session', sessionId: 's1', token: '[redacted]' },
    });
    expect(signIn).toMatchObject({
      body: { challengeId: 'c1', signature: '[redacted]' },
      sessionToken: '[redacted]',
    });
    expect(nested).toMatchObject({ request: { principal: { token: '[redacted]' } } });
  });
});

describe('loggedUrl', () => {
  it('masks the token after a link route, never a route word, and every query value', () => {
    expect(loggedUrl('/v2/secure-payments/01JZZ/pay?wallet=0xabc&amount=')).toBe(
      '/v2/secure-payments/…/pay?wallet=…&amount=',
    );
    expect(loggedUrl('/v2/secure-payments/payouts')).toBe('/v2/secure-payments/payouts');
    expect(loggedUrl('/v2/secure-payments/batch-payouts')).toBe(
      '/v2/secure-payments/batch-payouts',
    );
    expect(loggedUrl('/v2/secure-payments/multicall-payouts/01JZZ')).toBe(
      '/v2/secure-payments/multicall-payouts/…',
    );
    expect(loggedUrl('/v2/secure-payments?requestId=01ab&flag')).toBe(
      '/v2/secure-payments?requestId=…&flag',
    );
    expect(loggedUrl('/v2/request/01ab/pay')).toBe('/v2/request/01ab/pay');
  });

  it('masks the client ID an orchestrator unlinks, never a client ID row id', () => {
    expect(loggedUrl('/v2/orchestrators/client-ids/cli_secretvalue')).toBe(
      '/v2/orchestrators/client-ids/…',
    );
    expect(loggedUrl('/v2/orchestrators//client%2Dids/cli_secretvalue?x=1')).toBe(
      '/v2/orchestrators//client%2Dids/…?x=…',
    );
    expect(loggedUrl('/v2/orchestrators/client-ids?page=2')).toBe(
      '/v2/orchestrators/client-ids?page=…',
    );
    const rowId = '0190a6f2-0000-7000-8000-000000000001';
    expect(loggedUrl(`/v2/client-ids/${rowId}/orchestrator`)).toBe(
      `/v2/client-ids/${rowId}/orchestrator`,
    );
  });

  it("masks a link intent's access token, not the client ID row id of a KYT plan", () => {
    expect(loggedUrl('/v1/client-id-links/intents/lki_secretvalue')).toBe(
      '/v1/client-id-links/intents/…',
    );
    expect(loggedUrl('/link/lki_secretvalue')).toBe('/link/…');
    expect(loggedUrl('/pay/link/lki_secretvalue?x=1')).toBe('/pay/link/…?x=…');
    const rowId = '0190a6f2-0000-7000-8000-000000000001';
    expect(loggedUrl(`/v1/client-id-links/${rowId}/kyt`)).toBe(`/v1/client-id-links/${rowId}/kyt`);
  });

  it('reads segments as the router does: decoded, past empty ones', () => {
    expect(loggedUrl('/v2/secure%2Dpayments/01JZZ/pay')).toBe('/v2/secure%2Dpayments/…/pay');
    expect(loggedUrl('/v2/payouts/recurring/%74oken/01JZZ')).toBe(
      '/v2/payouts/recurring/%74oken/…',
    );
    expect(loggedUrl('/v2/secure-payments//01JZZ')).toBe('/v2/secure-payments//…');
    expect(loggedUrl('/v2/secure-payments/%E0%A4%A')).toBe('/v2/secure-payments/…');
  });
});
