/**
 * The session cookie is ambient: a browser attaches it to a request whatever page sent it, so
 * a page of another site (or another subdomain: SameSite=Lax only stops other sites) could
 * end a session or change an account by posting a form. A request that changes something and
 * rides on the cookie must come from one of our own origins (the dashboard's, the APIs'); a
 * read is governed by CORS instead, and a Bearer token is never ambient. Requests without
 * `Origin` (scripts, same-origin navigations of old browsers) are not a browser's cross-site
 * post: browsers send it on every cross-origin POST.
 */

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const CROSS_SITE_COOKIE_MESSAGE =
  'The session cookie works only from the dashboard’s pages; elsewhere send Authorization: Bearer';

/** Whose pages may write with the session cookie: the dashboard's, and the APIs' own. */
export function cookieWriteOrigins(urls: {
  readonly dashboardUrl: string;
  readonly authUrl: string;
  readonly baseUrl: string;
}): ReadonlySet<string> {
  return new Set([urls.dashboardUrl, urls.authUrl, urls.baseUrl].map((url) => new URL(url).origin));
}

export function cookieWriteAllowed(
  method: string,
  origin: string | undefined,
  trusted: ReadonlySet<string>,
): boolean {
  return SAFE_METHODS.has(method) || origin === undefined || trusted.has(origin);
}
