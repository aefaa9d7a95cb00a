import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  badRequest,
  createLink,
  destination,
  expectRefused,
  get,
  setupSecurePaymentsApp,
  shop,
  t,
  validationFailed,
} from '../../test/secure-payments.ts';
import { securePayments } from '../db/schema.ts';
import {
  REDIRECT_LABEL_MESSAGE,
  REDIRECT_LABEL_WITHOUT_URL_MESSAGE,
  REDIRECT_URL_MESSAGE,
} from './create.ts';

/**
 * `POST /v2/secure-payments` over HTTP on the real app: which redirect URLs and labels a link
 * may carry, with the exact statuses and messages of a refusal.
 */

setupSecurePaymentsApp();

describe('POST /v2/secure-payments: redirect rules', () => {
  let destinationId: string;
  beforeAll(async () => {
    destinationId = (await destination(shop)).destinationId;
  });
  const one = () => [{ destinationId, amount: '1' }];

  it.each([
    ['a javascript: URL', 'javascript:alert(1)'],
    ['an ftp URL', 'ftp://shop.example/file'],
    ['a data: URL', 'data:text/html,<b>hi</b>'],
    ['text that is no URL', 'not a url'],
    ['a protocol-relative URL', '//shop.example/back'],
    ['<', 'https://shop.example/<script>'],
    ['>', 'https://shop.example/a>b'],
    ['a double quote', 'https://shop.example/?q="x"'],
    ['a single quote', "https://shop.example/?q='x'"],
    ['a backtick', 'https://shop.example/?q=`x`'],
    ['a space', 'https://shop.example/a b'],
    ['a tab', 'https://shop.example/a\tb'],
    ['a newline', 'https://shop.example/back\n'],
    ['leading whitespace', ' https://shop.example/back'],
  ])('refuses a redirectUrl with %s', async (_case, redirectUrl) => {
    await expectRefused(
      apiKey(shop),
      { requests: one(), redirectUrl },
      400,
      badRequest(REDIRECT_URL_MESSAGE, 'invalid_redirect_url'),
    );
  });

  it('refuses a redirectUrl longer than 2048 characters', async () => {
    const redirectUrl = `https://shop.example/${'a'.repeat(2048)}`;
    await expectRefused(
      apiKey(shop),
      { requests: one(), redirectUrl },
      400,
      validationFailed([
        { field: 'redirectUrl', message: 'must NOT have more than 2048 characters' },
      ]),
    );
  });

  it('refuses an amount longer than 100 characters', async () => {
    await expectRefused(
      apiKey(shop),
      { requests: [{ destinationId, amount: '1'.repeat(101) }] },
      400,
      validationFailed([
        { field: 'requests[0].amount', message: 'must be at most 100 characters' },
      ]),
    );
  });

  it('refuses an unsafe redirectUrl even with a valid label', async () => {
    await expectRefused(
      apiKey(shop),
      { requests: one(), redirectUrl: 'javascript:alert(1)', redirectLabel: 'Back' },
      400,
      badRequest(REDIRECT_URL_MESSAGE, 'invalid_redirect_url'),
    );
  });

  it('accepts http and https redirect URLs', async () => {
    for (const redirectUrl of ['http://localhost:3000/done?order=1', 'https://shop.example/th#x']) {
      const link = await createLink(shop, one(), { redirectUrl });
      const [row] = await t.db
        .select()
        .from(securePayments)
        .where(eq(securePayments.token, link.token));
      expect(row?.redirectUrl).toBe(redirectUrl);
    }
  });

  it('refuses a redirectLabel without a redirectUrl', async () => {
    await expectRefused(
      apiKey(shop),
      { requests: one(), redirectLabel: 'Back to shop' },
      400,
      badRequest(REDIRECT_LABEL_WITHOUT_URL_MESSAGE, 'redirect_label_without_url'),
    );
  });

  it.each([
    ['empty', ''],
    ['256 characters long', 'x'.repeat(256)],
    ['with <', 'a<b'],
    ['with >', 'a>b'],
    ['with &', 'Tom & Jerry'],
    ['with a double quote', 'say "hi"'],
    ['with a single quote', "it's"],
    ['with a backtick', 'a`b'],
  ])('refuses a redirectLabel %s', async (_case, redirectLabel) => {
    await expectRefused(
      apiKey(shop),
      { requests: one(), redirectUrl: 'https://shop.example/back', redirectLabel },
      400,
      badRequest(REDIRECT_LABEL_MESSAGE, 'invalid_redirect_label'),
    );
  });

  it('accepts redirect labels of 1 and 255 characters', async () => {
    for (const redirectLabel of ['x', 'y'.repeat(255), 'Back to the shop!']) {
      const link = await createLink(shop, one(), {
        redirectUrl: 'https://shop.example/back',
        redirectLabel,
      });
      const shown = await get(`/v2/secure-payments/${link.token}`, apiKey(shop));
      expect(shown.json().redirectLabel).toBe(redirectLabel);
    }
  });
});
