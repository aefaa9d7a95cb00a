import { lookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { LOOPBACK_HOSTS } from '../base/ids.ts';

/**
 * Where webhooks may point. Public https endpoints only, unless `ALLOW_LOCAL_WEBHOOKS` is on,
 * which also admits http on loopback names and private addresses (for development). The rule
 * is checked twice: on registration against the URL, and on every delivery against the
 * addresses the name resolves to then, so a name that later resolves inward is refused.
 */

const MAX_URL_LENGTH = 2048;

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return PRIVATE.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type UrlCheck =
  | { readonly ok: true; readonly url: string }
  | { readonly ok: false; readonly reason: string };

export function checkWebhookUrl(input: string, allowLocal: boolean): UrlCheck {
  if (input.length > MAX_URL_LENGTH)
    return { ok: false, reason: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: 'must be an absolute URL' };
  }
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'must not contain credentials' };
  // `hash` is empty for a bare `#`, which the URL still carries.
  if (url.href.includes('#')) return { ok: false, reason: 'must not contain a fragment' };
  // A trailing dot names the same host (`localhost.` is localhost).
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const local =
    LOOPBACK_HOSTS.has(host) ||
    host.endsWith('.localhost') ||
    (isIP(host.replace(/^\[|\]$/g, '')) !== 0 && isPrivateAddress(host.replace(/^\[|\]$/g, '')));
  if (url.protocol === 'http:') {
    if (!(allowLocal && local))
      return {
        ok: false,
        reason: 'must use https (http only for localhost when ALLOW_LOCAL_WEBHOOKS is on)',
      };
  } else if (url.protocol !== 'https:') {
    return { ok: false, reason: 'must use https' };
  }
  if (local && !allowLocal)
    return { ok: false, reason: 'must not point at a private or loopback address' };
  return { ok: true, url: url.toString() };
}

/**
 * The delivery-time rule for a host written as an IP address: Node connects to a literal
 * without calling the lookup, so `safeLookup` never sees it. Null when the URL may be sent to.
 */
export function literalRefusal(url: string, allowLocal: boolean): string | null {
  if (allowLocal) return null;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 && isPrivateAddress(host) ? `${host} is a private address` : null;
}

/** A DNS lookup for outgoing deliveries that refuses private addresses unless allowed. */
export function safeLookup(allowLocal: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as { address: string; family: number }[];
      const allowed = allowLocal ? list : list.filter((entry) => !isPrivateAddress(entry.address));
      const [first] = allowed;
      if (!first) {
        const refused = Object.assign(new Error(`${hostname} resolves only to private addresses`), {
          code: 'EPRIVATE',
        });
        return callback(refused, '', 0);
      }
      if ((options as { all?: boolean }).all) {
        return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(
          null,
          allowed,
        );
      }
      return callback(null, first.address, first.family);
    });
  };
}
