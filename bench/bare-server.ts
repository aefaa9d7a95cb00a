// The baselines of bench/http.bench.ts, in a process of their own as payreq runs in its own:
// bare Fastify routes doing one INSERT, one SELECT, one SELECT and one eth_call, or nothing.
// DATABASE_URL: Postgres; otherwise PGlite in DATA_DIR. RPC_URL: the chain for eth_call.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import Fastify from 'fastify';

const port = Number(process.env.PORT ?? 0);
const rpcUrl = process.env.RPC_URL;
// The cheapest JSON-RPC call Node makes: node:http over keep-alive sockets (what payreq's own
// RPC client is made of), so the baseline is not slowed by the heavier global fetch.
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
function ethCall(body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      rpcUrl ?? '',
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve(text));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

type Query = (text: string, params: unknown[]) => Promise<{ rows: unknown[] }>;
let query: Query;
if (process.env.DATABASE_URL) {
  const pg = (await import('pg')).default;
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  query = (text, params) => pool.query(text, params);
} else {
  const { PGlite } = await import('@electric-sql/pglite');
  const dataDir = process.env.DATA_DIR;
  const pglite = await PGlite.create(dataDir === undefined ? {} : { dataDir });
  query = (text, params) => pglite.query(text, params);
}
await query(
  'create table if not exists bench_rows (id text primary key, account text not null, body jsonb not null, created_at timestamptz not null default now())',
  [],
);
await query(
  "insert into bench_rows (id, account, body) values ('seed', 'a', '{}') on conflict do nothing",
  [],
);

const app = Fastify({ logger: false });
app.get('/bare', async () => ({ ok: true }));
app.post('/insert', async (request, reply) => {
  const id = randomBytes(16).toString('hex');
  await query('insert into bench_rows (id, account, body) values ($1, $2, $3)', [
    id,
    'a',
    JSON.stringify(request.body ?? {}),
  ]);
  return reply.code(201).send({ id });
});
app.get('/select/:id', async (request) => {
  const { id } = request.params as { id: string };
  const { rows } = await query('select id, body from bench_rows where id = $1', [id]);
  return rows[0] ?? null;
});
app.get('/select-call/:id', async (request) => {
  const { id } = request.params as { id: string };
  const { rows } = await query('select id, body from bench_rows where id = $1', [id]);
  const answer = await ethCall(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ to: process.env.CALL_TO, data: process.env.CALL_DATA }, 'latest'],
    }),
  );
  return { row: rows[0] ?? null, call: (JSON.parse(answer) as { result?: string }).result };
});
await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(`listening ${(app.server.address() as { port: number }).port}\n`);
