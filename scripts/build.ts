// `npm run build` (and the first step of `npm start`): the pay page and the server bundle, built
// at once (esbuild works each on its own threads). Never committed: both land in dist/.
import { buildPayPage } from './build-pay-page.ts';
import { buildServer } from './build-server.ts';

const [manifest, serverBuilt] = await Promise.all([buildPayPage(), buildServer()]);
process.stdout.write(
  `pay page built: ${manifest.files.length} files in dist/pay-page; server ${serverBuilt ? 'built' : 'up to date'} in dist/server\n`,
);
