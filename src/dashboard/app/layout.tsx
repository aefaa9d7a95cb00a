import type { ComponentChildren } from 'preact';
import { followLink, hrefOf, PAGES, type Route, sectionOf } from './router.ts';
import type { Session } from './session.ts';

/** The signed-in frame: the pages, who is signed in, and the way out. */
export function Layout(props: {
  readonly basePath: string;
  readonly route: Route | null;
  readonly session: Session;
  readonly onSignOut: () => void;
  readonly children: ComponentChildren;
}) {
  const section = sectionOf(props.route);
  const who = props.session.email ?? props.session.walletAddress ?? props.session.userId;
  return (
    <div class="frame">
      <header class="bar">
        <span class="brand">payreq</span>
        <span class="who" data-field="who">
          {who}
        </span>
        <button type="button" class="quiet" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <nav class="pages" aria-label="Dashboard">
        <ul>
          {PAGES.map((page) => {
            const href = hrefOf(props.basePath, page.path);
            return (
              <li key={page.path}>
                <a
                  href={href}
                  aria-current={section === page.path ? 'page' : undefined}
                  onClick={(event) => followLink(event, href)}
                >
                  {page.title}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      {props.children}
    </div>
  );
}
