// `npm run build` (and the first step of `npm start`): the browser apps and the server bundle,
// built at once (esbuild works each on its own threads). Never committed: all land in dist/.

import { buildServer } from './build-server.ts';
import { buildWebApp, WEB_APPS } from './build-web-app.ts';

const [serverBuilt, ...manifests] = await Promise.all([
  buildServer(),
  ...WEB_APPS.map((app) => buildWebApp(app)),
]);
const apps = WEB_APPS.map((app, i) => `${app.title} (${manifests[i]?.files.length} files)`);
process.stdout.write(
  `built ${apps.join(', ')}; server ${serverBuilt ? 'built' : 'up to date'} in dist/server\n`,
);
