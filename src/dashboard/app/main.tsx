import { render } from 'preact';
import { App } from './app.tsx';
import { readConfig } from './config.ts';

const root = document.getElementById('app');
if (root !== null) {
  // The shell's loading screen goes: the app renders in its place.
  root.replaceChildren();
  render(<App config={readConfig()} />, root);
}
