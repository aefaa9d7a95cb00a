import type { ComponentChildren } from 'preact';
import type { Session } from './session.ts';

/** The signed-in frame: who is signed in, and the way out. */
export function Layout(props: {
  readonly session: Session;
  readonly onSignOut: () => void;
  readonly children: ComponentChildren;
}) {
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
      {props.children}
    </div>
  );
}
