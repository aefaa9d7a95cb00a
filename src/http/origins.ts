import { LOOPBACK_HOSTS } from '../base/ids.ts';

/**
 * Allowed-domain rules for client IDs: an origin is https, or http only for the loopback hosts
 * (localhost, 127.0.0.1, [::1]); it has no path, query, fragment or credentials. Stored and
 * compared in `URL.origin` form (lower-case host, default port dropped).
 */

export type OriginCheck = { ok: true; origin: string } | { ok: false; reason: string };

export function normaliseAllowedOrigin(input: string): OriginCheck {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return { ok: false, reason: 'must be an origin such as https://shop.example' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: 'must use https (or http for localhost)' };
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    return {
      ok: false,
      reason: 'must use https; http is allowed only for localhost, 127.0.0.1 and [::1]',
    };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'must not contain credentials' };
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]/.test(input)) {
    return { ok: false, reason: 'must not contain a path, query or fragment' };
  }
  if (url.hostname.includes('*')) {
    return { ok: false, reason: 'must not contain wildcards' };
  }
  return { ok: true, origin: url.origin };
}

/**
 * Does the browser's `Origin` header name one of the allowed origins? Only the shape is checked
 * here, not the https rule: that rule is for origins a user registers, while the pay page's
 * own client ID is allowed on PAY_URL's origin, which the operator may serve over plain http.
 */
export function originAllowed(allowed: readonly string[], originHeader: string): boolean {
  let url: URL;
  try {
    url = new URL(originHeader.trim());
  } catch {
    return false;
  }
  const isOrigin =
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    !/[?#]/.test(originHeader);
  return isOrigin && allowed.includes(url.origin);
}
