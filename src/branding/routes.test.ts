import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { brandings } from '../db/schema.ts';
import { linkClientId } from '../orchestrators/links.ts';
import { createOrchestrator } from '../orchestrators/orchestrators.ts';

let t: TestApp;
let tenant: Tenant;
let key: string;
let orchestratorId: string;
let rivalKey: string;
let rivalClientId: string;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db);
  const platform = await createOrchestrator(t.db, 'Platform');
  key = platform.orchestratorKey;
  orchestratorId = platform.orchestratorId;
  await linkClientId(t.db, orchestratorId, tenant.backendClientId);
  const rival = await createOrchestrator(t.db, 'Rival');
  rivalKey = rival.orchestratorKey;
  const rivalTenant = await createTenant(t.db, 'Rival shop');
  rivalClientId = rivalTenant.backendClientId;
  await linkClientId(t.db, rival.orchestratorId, rivalClientId);
});
afterAll(() => t.close());

const URL = '/v2/orchestrators/branding';

function call(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object,
  orchestratorKey = key,
) {
  return t.app.inject({
    method,
    url,
    headers: { 'x-orchestrator-key': orchestratorKey },
    ...(payload && { payload }),
  });
}

async function rowCount(): Promise<number> {
  return (await t.db.select().from(brandings).where(eq(brandings.orchestratorId, orchestratorId)))
    .length;
}

describe('POST /v2/orchestrators/branding', () => {
  it('creates the orchestrator’s branding, unset fields null; a second create is 409', async () => {
    const res = await call('POST', URL, {
      logoPath: '/branding/acme/logo.png',
      pageBackgroundColor: '#0a0a0a',
      primaryActionColor: '#FF6600',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(String),
      orchestratorId,
      clientIdId: null,
      logoPath: '/branding/acme/logo.png',
      pageBackgroundColor: '#0a0a0a',
      cardBackgroundColor: null,
      primaryActionColor: '#FF6600',
      primaryTextColor: null,
      secondaryTextColor: null,
      termsPath: null,
      privacyPath: null,
      displayRequestBranding: false,
    });
    const again = await call('POST', URL, { primaryActionColor: '#000' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({
      code: 'branding_exists',
      message: 'This orchestrator has a branding already: change it with PATCH',
    });
    const stored = await call('GET', URL);
    expect(stored.json().primaryActionColor).toBe('#FF6600');
  });

  it('creates a linked client ID’s branding, taking the design tokens’ names', async () => {
    const res = await call('POST', URL, {
      clientId: tenant.backendClientId,
      surfaceBackground: '#fff',
      primaryText: '#111111',
      termsPath: '/branding/terms.html',
      displayRequestBranding: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      clientIdId: expect.any(String),
      cardBackgroundColor: '#fff',
      primaryTextColor: '#111111',
      termsPath: '/branding/terms.html',
      displayRequestBranding: true,
      pageBackgroundColor: null,
    });
    expect(res.json()).not.toHaveProperty('surfaceBackground');
    const again = await call('POST', URL, {
      clientId: tenant.backendClientId,
      primaryText: '#000',
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(
      'This client ID has a branding already: change it with PATCH',
    );
  });

  it.each([
    [
      { primaryActionColor: 'red' },
      'primaryActionColor',
      'must be a hex color of 3 or 6 digits, such as #0a7 or #00aa77',
    ],
    [
      { primaryActionColor: '#abcd' },
      'primaryActionColor',
      'must be a hex color of 3 or 6 digits, such as #0a7 or #00aa77',
    ],
    [
      { pageBackground: '00aa77' },
      'pageBackground',
      'must be a hex color of 3 or 6 digits, such as #0a7 or #00aa77',
    ],
    [
      { primaryText: '#000', primaryTextColor: '#111' },
      'primaryTextColor',
      'and primaryText name the same color: send one of them',
    ],
    [{ logoPath: '/branding/logo.svg' }, 'logoPath', 'must end in .png, .jpg, .jpeg, .webp, .avif'],
    [
      { logoPath: '/branding/terms.html' },
      'logoPath',
      'must end in .png, .jpg, .jpeg, .webp, .avif',
    ],
    [{ termsPath: '/branding/terms.png' }, 'termsPath', 'must end in .html'],
    [
      { logoPath: 'https://cdn.example/logo.png' },
      'logoPath',
      expect.stringMatching(/^must be a relative path under \/branding\//),
    ],
    [
      { logoPath: '/assets/logo.png' },
      'logoPath',
      expect.stringMatching(/^must be a relative path/),
    ],
    [
      { logoPath: '/branding/../secret.png' },
      'logoPath',
      expect.stringMatching(/^must be a relative path/),
    ],
    [
      { logoPath: '/branding/a..b.png' },
      'logoPath',
      expect.stringMatching(/^must be a relative path/),
    ],
    [
      { privacyPath: '/branding/privacy.html?x=1' },
      'privacyPath',
      expect.stringMatching(/^must be a relative path/),
    ],
    [
      { privacyPath: '/branding/privacy.html#top' },
      'privacyPath',
      expect.stringMatching(/^must be a relative path/),
    ],
    [
      { termsPath: '/branding//terms.html' },
      'termsPath',
      expect.stringMatching(/^must be a relative path/),
    ],
  ])('refuses %j: 400 naming the field, nothing written', async (body, field, message) => {
    const before = await rowCount();
    const level = { clientId: tenant.browserClientId };
    // The browser client ID is not linked: the fields are checked before the level, so a bad
    // field is what the answer names either way.
    for (const extra of [{}, level]) {
      const res = await call('POST', URL, { ...body, ...extra });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors).toEqual([{ field, message }]);
    }
    expect(await rowCount()).toBe(before);
  });

  it('refuses null and wrong types by the schema', async () => {
    for (const body of [
      { primaryActionColor: null },
      { displayRequestBranding: 'yes' },
      { logoPath: 5 },
    ]) {
      const res = await call('POST', URL, { clientId: tenant.browserClientId, ...body });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
  });

  it('refuses a client ID that is unknown, not linked or another orchestrator’s (403), writing nothing', async () => {
    const before = await rowCount();
    for (const clientId of [tenant.browserClientId, 'cli_unknown', rivalClientId]) {
      const res = await call('POST', URL, { clientId, primaryActionColor: '#123' });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({
        code: 'client_id_not_linked',
        message: 'Client ID is not linked to this orchestrator',
      });
    }
    expect(await rowCount()).toBe(before);
  });
});

describe('GET, PATCH and DELETE /v2/orchestrators/branding', () => {
  it('reads each level by ?clientId=', async () => {
    const own = await call('GET', URL);
    expect(own.statusCode).toBe(200);
    expect(own.json().clientIdId).toBeNull();
    const client = await call('GET', `${URL}?clientId=${tenant.backendClientId}`);
    expect(client.statusCode).toBe(200);
    expect(client.json().primaryTextColor).toBe('#111111');
    const refused = await call('GET', `${URL}?clientId=${rivalClientId}`);
    expect(refused.statusCode).toBe(403);
  });

  it('changes only the fields sent; cannot clear one; needs one field', async () => {
    const res = await call('PATCH', URL, {
      clientId: tenant.backendClientId,
      primaryActionColor: '#00d395',
      privacyPath: '/branding/privacy.html',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      primaryActionColor: '#00d395',
      privacyPath: '/branding/privacy.html',
      primaryTextColor: '#111111',
      termsPath: '/branding/terms.html',
    });
    const cleared = await call('PATCH', URL, { clientId: tenant.backendClientId, termsPath: null });
    expect(cleared.statusCode).toBe(400);
    const empty = await call('PATCH', URL, { clientId: tenant.backendClientId });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().errors).toEqual([
      { field: 'body', message: 'must set at least one branding field' },
    ]);
    const bad = await call('PATCH', URL, {
      clientId: tenant.backendClientId,
      logoPath: '/branding/x.svg',
    });
    expect(bad.statusCode).toBe(400);
    const after = await call('GET', `${URL}?clientId=${tenant.backendClientId}`);
    expect(after.json()).toMatchObject({ termsPath: '/branding/terms.html', logoPath: null });
  });

  it('answers 404 for a level without a branding', async () => {
    const res = await call('PATCH', URL, { primaryTextColor: '#000' }, rivalKey);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({
      code: 'branding_not_found',
      message: 'This orchestrator has no branding',
    });
    expect((await call('GET', URL, undefined, rivalKey)).statusCode).toBe(404);
  });

  it('deletes idempotently: removed, then not', async () => {
    const url = `${URL}?clientId=${tenant.backendClientId}`;
    const first = await call('DELETE', url);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ removed: true });
    const second = await call('DELETE', url);
    expect(second.json()).toEqual({ removed: false });
    expect((await call('GET', url)).statusCode).toBe(404);
    // The orchestrator's own row is untouched.
    expect((await call('GET', URL)).statusCode).toBe(200);
    expect((await call('DELETE', `${URL}?clientId=${rivalClientId}`)).statusCode).toBe(403);
  });

  it('needs an orchestrator key', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: URL,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(401);
    expect(res.statusCode).toBeLessThanOrEqual(403);
  });
});
