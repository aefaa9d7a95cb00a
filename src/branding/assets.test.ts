import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';

/** BRANDING_DIR, served read-only under `/branding/`: the allowed kinds of file, nothing else. */

// The smallest PNG: its signature and an IHDR is enough for a content check.
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const TERMS = '<!doctype html><title>Terms</title><p>Our terms.</p>';

let t: TestApp;

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'payreq-branding-'));
  const dir = join(root, 'branding');
  mkdirSync(join(dir, 'acme', 'nested.png'), { recursive: true });
  writeFileSync(join(dir, 'acme', 'logo.png'), PNG);
  writeFileSync(join(dir, 'acme', 'logo.JPG'), PNG);
  writeFileSync(join(dir, 'terms.html'), TERMS);
  writeFileSync(join(dir, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>');
  writeFileSync(join(dir, 'notes.txt'), 'operator notes');
  writeFileSync(join(root, 'secret.png'), PNG);
  symlinkSync(join(root, 'secret.png'), join(dir, 'escape.png'));
  t = await createTestApp({ env: { BRANDING_DIR: dir } });
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url });

describe('GET /branding/<path>', () => {
  it('serves a logo with its content type and cache headers', async () => {
    const res = await get('/branding/acme/logo.png');
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(PNG)).toBe(true);
    expect(res.headers).toMatchObject({
      'content-type': 'image/png',
      'cache-control': 'public, max-age=300',
      'x-content-type-options': 'nosniff',
    });
    expect(res.headers['last-modified']).toEqual(expect.any(String));
    expect((await get('/branding/acme/logo.JPG')).headers['content-type']).toBe('image/jpeg');
  });

  it('serves a legal page as HTML that runs no script', async () => {
    const res = await get('/branding/terms.html');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(TERMS);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['content-security-policy']).toContain('sandbox');
  });

  it.each([
    '/branding/logo.svg',
    '/branding/notes.txt',
    '/branding/../secret.png',
    '/branding/%2e%2e/secret.png',
    '/branding/acme/..%2f..%2fsecret.png',
    '/branding/acme%2f..%2f..%2fsecret.png',
    '/branding/escape.png',
    '/branding/',
    '/branding/acme',
    '/branding/acme/',
    '/branding/acme/nested.png',
    '/branding/missing.png',
    '/branding/.hidden.png',
  ])('refuses %s with 404', async (url) => {
    const res = await get(url);
    expect(res.statusCode).toBe(404);
    expect(res.rawPayload.includes(PNG)).toBe(false);
  });

  it('is read-only', async () => {
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: '/branding/acme/logo.png', payload: 'x' });
      expect(res.statusCode).toBeGreaterThanOrEqual(404);
      expect(res.statusCode).toBeLessThan(500);
    }
    expect((await get('/branding/acme/logo.png')).rawPayload.equals(PNG)).toBe(true);
  });
});
