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

/**
 * Whether a request may change something on the session cookie alone. Besides our configured
 * origins, a page of the very origin the request went to (`own`: its scheme and Host) is ours:
 * the dashboard opened under another name the server answers to (127.0.0.1 for a BASE_URL of
 * localhost). A browser never sends another site's page's request with that Origin, and a page
 * of another site rebinding our address by DNS has no cookie of ours to send.
 */
export function cookieWriteAllowed(
  method: string,
  origin: string | undefined,
  trusted: ReadonlySet<string>,
  own?: { readonly protocol: string; readonly host: string },
): boolean {
  if (SAFE_METHODS.has(method) || origin === undefined || trusted.has(origin)) return true;
  return own !== undefined && origin === originOf(own);
}

function originOf(own: { readonly protocol: string; readonly host: string }): string | null {
  try {
    return new URL(`${own.protocol}://${own.host}`).origin;
  } catch {
    return null;
  }
}
