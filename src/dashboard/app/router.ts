import { useEffect, useState } from 'preact/hooks';

/**
 * The dashboard's pages are addresses under its path (`/dashboard/api-keys`), so each can be
 * reloaded, bookmarked and shared; the server answers the same shell for all of them. Moving
 * between pages changes the address without a reload (history.pushState).
 */

/** Every page, by the path after the dashboard's own ('' is Home). */
export const PAGES = [
  { path: '', title: 'Home' },
  { path: 'payments', title: 'Payments' },
  { path: 'webhooks', title: 'Webhooks' },
  { path: 'client-ids', title: 'Client IDs' },
  { path: 'api-keys', title: 'API keys' },
] as const;

export type PagePath = (typeof PAGES)[number]['path'];

/** The page an address names, or null for none of ours. */
function pageOf(basePath: string, pathname: string): PagePath | null {
  const rest = pathname.startsWith(basePath) ? pathname.slice(basePath.length) : pathname;
  const path = rest.replace(/^\/+|\/+$/g, '');
  return PAGES.find((page) => page.path === path)?.path ?? null;
}

const NAVIGATED = 'payreq:navigated';

/** The page of the address now, following links and the browser's back and forward. */
export function usePage(basePath: string): PagePath | null {
  const [page, setPage] = useState(() => pageOf(basePath, location.pathname));
  useEffect(() => {
    const follow = () => setPage(pageOf(basePath, location.pathname));
    window.addEventListener('popstate', follow);
    window.addEventListener(NAVIGATED, follow);
    return () => {
      window.removeEventListener('popstate', follow);
      window.removeEventListener(NAVIGATED, follow);
    };
  }, [basePath]);
  return page;
}

/** The address of a page. */
export function hrefOf(basePath: string, path: PagePath): string {
  return `${basePath}/${path}`;
}

/**
 * Follows a link to one of the dashboard's pages without a reload; a click that asks for a
 * new tab or window (a modifier key, another button) is left to the browser.
 */
export function followLink(event: MouseEvent, href: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
    return;
  }
  event.preventDefault();
  if (location.pathname !== href) history.pushState(null, '', href);
  window.dispatchEvent(new Event(NAVIGATED));
}
