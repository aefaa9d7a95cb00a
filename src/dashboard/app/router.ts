import { useEffect, useState } from 'preact/hooks';

/**
 * The dashboard's pages are addresses under its path (`/dashboard/api-keys`), so each can be
 * reloaded, bookmarked and shared; the server answers the same shell for all of them. Moving
 * between pages changes the address without a reload (history.pushState).
 */

/** Every page, by the path after the dashboard's own ('' is Home). */
export const PAGES = [
  { path: '', title: 'Home' },
  { path: 'links', title: 'Links' },
  { path: 'payments', title: 'Payments' },
  { path: 'payouts', title: 'Payouts' },
  { path: 'destinations', title: 'Destinations' },
  { path: 'webhooks', title: 'Webhooks' },
  { path: 'client-ids', title: 'Client IDs' },
  { path: 'api-keys', title: 'API keys' },
] as const;

export type PagePath = (typeof PAGES)[number]['path'];

/** Where the address is: one of the pages, or one link's page (`links/<token>`). */
export type Route = { readonly page: PagePath } | { readonly page: 'link'; readonly token: string };

const LINK_PAGE = /^links\/([0-9A-Za-z]{26})$/;

/** The route an address names, or null for none of ours. */
function routeOf(basePath: string, pathname: string): Route | null {
  const rest = pathname.startsWith(basePath) ? pathname.slice(basePath.length) : pathname;
  const path = rest.replace(/^\/+|\/+$/g, '');
  const link = LINK_PAGE.exec(path);
  if (link?.[1] !== undefined) return { page: 'link', token: link[1] };
  const page = PAGES.find((known) => known.path === path);
  return page === undefined ? null : { page: page.path };
}

/** The page of the navigation a route belongs to (a link's page: Links). */
export function sectionOf(route: Route | null): PagePath | null {
  if (route === null) return null;
  return route.page === 'link' ? 'links' : route.page;
}

const NAVIGATED = 'payreq:navigated';

/** The route of the address now, following links and the browser's back and forward. */
export function useRoute(basePath: string): Route | null {
  const [route, setRoute] = useState(() => routeOf(basePath, location.pathname));
  useEffect(() => {
    const follow = () => setRoute(routeOf(basePath, location.pathname));
    window.addEventListener('popstate', follow);
    window.addEventListener(NAVIGATED, follow);
    return () => {
      window.removeEventListener('popstate', follow);
      window.removeEventListener(NAVIGATED, follow);
    };
  }, [basePath]);
  return route;
}

/** The address of a page, or of a link's page. */
export function hrefOf(basePath: string, path: PagePath | `links/${string}`): string {
  return `${basePath}/${path}`;
}

/** Goes to one of the dashboard's pages without a reload (after a form made what it shows). */
export function goTo(href: string): void {
  if (location.pathname + location.search !== href) history.pushState(null, '', href);
  window.dispatchEvent(new Event(NAVIGATED));
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
  goTo(href);
}
