import type { WebAppManifest } from './web-assets.ts';

/**
 * The HTML shell of a browser app (the pay page, the dashboard): a few hundred bytes naming
 * the built script and style sheet, the page's configuration in a meta tag (no inline script,
 * so the CSP can forbid them all) and a loading screen the script replaces. Rendered once at
 * start; the same string every time.
 */

const ATTRIBUTE_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '"': '&quot;',
  "'": '&#39;',
  '<': '&lt;',
  '>': '&gt;',
};

/** Text for a quoted HTML attribute: whatever it holds, it cannot end the attribute or the tag. */
export function escapeAttribute(text: string): string {
  return text.replace(/[&"'<>]/g, (char) => ATTRIBUTE_ESCAPES[char] ?? char);
}

/** What the tab, the loading screen and a browser without JavaScript say. */
export interface ShellWords {
  readonly title: string;
  readonly loading: string;
  readonly noscript: string;
}

/**
 * `basePath`: the app's path without its trailing slash ('' at the root); `config`: what the
 * app reads from `<meta name="payreq-config">` (nothing secret: every visitor sees it).
 */
export function renderShell(input: {
  readonly basePath: string;
  readonly manifest: WebAppManifest;
  readonly config: unknown;
  readonly words: ShellWords;
}): string {
  const { words } = input;
  const asset = (file: string) => escapeAttribute(`${input.basePath}/assets/${file}`);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeAttribute(words.title)}</title>`,
    '<meta name="robots" content="noindex">',
    `<meta name="payreq-config" content="${escapeAttribute(JSON.stringify(input.config))}">`,
    `<link rel="stylesheet" href="${asset(input.manifest.styles)}">`,
    `<script type="module" src="${asset(input.manifest.main)}"></script>`,
    '</head>',
    '<body>',
    `<div id="app"><main class="card" data-screen="loading"><h1>${escapeAttribute(words.loading)}</h1></main></div>`,
    `<noscript>${escapeAttribute(words.noscript)}</noscript>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** A URL's path without its trailing slash: '' when it is the root. */
export function pathOf(url: string): string {
  return new URL(url).pathname.replace(/\/+$/, '');
}

/**
 * A shell's headers. The CSP allows scripts and styles from the page's origin only (no inline
 * code), images from it and as data: URIs (the icons wallets announce), API calls to the
 * page's origin and to `calls`' origins, and framing by `frameAncestors`. No referrer leaves
 * the page (a link's token is in a pay page's URL).
 */
export function shellHeaders(page: {
  readonly url: string;
  /** The CSP's frame-ancestors sources: `'none'` for a page no one may frame. */
  readonly frameAncestors: string;
  /** URLs the page calls besides its own origin (the API's, the auth API's). */
  readonly calls: readonly string[];
}): Record<string, string> {
  const own = new URL(page.url).origin;
  const others = new Set(page.calls.map((url) => new URL(url).origin).filter((o) => o !== own));
  const connect = ["'self'", ...others].join(' ');
  const policy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${page.frameAncestors}`,
  ];
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    // For browsers that predate frame-ancestors; it can only say none (or same origin).
    ...(page.frameAncestors === "'none'" && { 'x-frame-options': 'DENY' }),
    'content-security-policy': policy.join('; '),
  };
}
