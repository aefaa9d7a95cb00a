import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for TronGrid, over real HTTP on loopback: the four endpoints payment
 * detection calls, answering from state the test sets. Shapes follow TronGrid's (full-node
 * blocks and transactions with hex `41…` addresses, `/v1` events with `meta.fingerprint`
 * paging that must repeat the rest of the query, as TronGrid insists).
 */

/** TronGrid's page size when a query names none, and the most it allows. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 200;

interface FakeBlock {
  readonly number: number;
  /** ms since the epoch, as full nodes report it. */
  readonly timestamp: number;
  /** 64 hex digits, no `0x`. */
  readonly hash: string;
}

/** An item of `GET /v1/contracts/{address}/events`, as TronGrid serves it. */
export interface TronGridEventItem {
  readonly transaction_id: string;
  readonly block_number: number;
  readonly block_timestamp: number;
  readonly event_index: number;
  readonly event_name: string;
  /** base58. */
  readonly contract_address: string;
  readonly result: Readonly<Record<string, string>>;
  readonly result_type: Readonly<Record<string, string>>;
}

interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** Lower-cased names, as node:http gives them. */
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

export interface FakeTronGrid {
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  addBlock(block: FakeBlock): void;
  addEvent(event: TronGridEventItem): void;
  setSender(txId: string, ownerHex41: string): void;
  /** The next `count` requests, whatever they ask, answer `status`. */
  failNext(count: number, status: number): void;
  close(): Promise<void>;
}

/**
 * More endpoints on the same server (a full node's write side, say): answers a request it
 * serves, or `undefined` to leave it to the fake's own routes.
 */
export type ExtraRoutes = (
  method: string,
  path: string,
  body: unknown,
) => Promise<{ status: number; body: object } | undefined>;

export async function startFakeTronGrid(
  options: { extraRoutes?: ExtraRoutes } = {},
): Promise<FakeTronGrid> {
  const blocks = new Map<number, FakeBlock>();
  const events: TronGridEventItem[] = [];
  const senders = new Map<string, string>();
  const requests: RecordedRequest[] = [];
  const failures: number[] = [];

  function blockJson(block: FakeBlock | undefined): object {
    if (!block) return {};
    const parent = blocks.get(block.number - 1);
    return {
      blockID: block.hash,
      block_header: {
        raw_data: {
          number: block.number,
          timestamp: block.timestamp,
          parentHash: parent?.hash ?? '0'.repeat(64),
          version: 31,
        },
      },
    };
  }

  function listEvents(address: string, query: Record<string, string>, res: ServerResponse) {
    const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      return send(res, 400, { success: false, error: 'invalid limit', statusCode: 400 });
    const { fingerprint, ...rest } = query;
    const params = JSON.stringify(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)));
    let offset = 0;
    if (fingerprint !== undefined) {
      const cursor = decodeFingerprint(fingerprint);
      if (cursor?.params !== params)
        return send(res, 400, {
          success: false,
          error: 'Invalid query filter(s)!: [fingerprint does not match current set of params]',
          statusCode: 400,
        });
      offset = cursor.offset;
    }
    const min = Number(query.min_block_timestamp ?? 0);
    const max = Number(query.max_block_timestamp ?? Number.MAX_SAFE_INTEGER);
    const matching = events
      .filter(
        (e) =>
          e.contract_address === address &&
          (query.event_name === undefined || e.event_name === query.event_name) &&
          e.block_timestamp >= min &&
          e.block_timestamp <= max,
      )
      .sort((a, b) => a.block_timestamp - b.block_timestamp || a.block_number - b.block_number);
    if (query.order_by !== 'block_timestamp,asc') matching.reverse();
    const data = matching.slice(offset, offset + limit);
    const more = offset + limit < matching.length;
    const meta: Record<string, unknown> = { at: Date.now(), page_size: data.length };
    if (more) meta.fingerprint = encodeFingerprint({ offset: offset + limit, params });
    return send(res, 200, { data, success: true, meta });
  }

  function transactionJson(txId: string): object {
    const owner = senders.get(txId.toLowerCase());
    if (owner === undefined) return {};
    return {
      ret: [{ contractRet: 'SUCCESS' }],
      txID: txId,
      raw_data: {
        contract: [
          {
            parameter: {
              value: { owner_address: owner },
              type_url: 'type.googleapis.com/protocol.TriggerSmartContract',
            },
            type: 'TriggerSmartContract',
          },
        ],
      },
    };
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = null;
    try {
      body = raw === '' ? null : JSON.parse(raw);
    } catch {
      return send(res, 400, { Error: 'body is not JSON' });
    }
    const query = Object.fromEntries(url.searchParams);
    requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query,
      headers: req.headers,
      body,
    });

    const failing = failures[0];
    if (failing !== undefined) {
      failures.shift();
      return send(res, failing, { Error: 'injected failure' });
    }

    const extra = await options.extraRoutes?.(req.method ?? '', url.pathname, body);
    if (extra) return send(res, extra.status, extra.body);

    const post = req.method === 'POST';
    const contract = /^\/v1\/contracts\/([^/]+)\/events$/.exec(url.pathname)?.[1];
    if (req.method === 'GET' && contract !== undefined)
      return listEvents(decodeURIComponent(contract), query, res);
    if (post && url.pathname === '/wallet/getnowblock') {
      const newest = Math.max(...blocks.keys());
      return send(res, 200, blockJson(blocks.get(newest)));
    }
    if (post && url.pathname === '/wallet/getblockbynum')
      return send(res, 200, blockJson(blocks.get(Number(field(body, 'num')))));
    if (post && url.pathname === '/wallet/gettransactionbyid')
      return send(res, 200, transactionJson(String(field(body, 'value'))));
    return send(res, 404, { Error: 'not found' });
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { Error: String(error) }));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    addBlock: (block) => blocks.set(block.number, block),
    addEvent: (event) => events.push(event),
    setSender: (txId, ownerHex41) => senders.set(txId.toLowerCase(), ownerHex41),
    failNext: (count, status) => failures.push(...Array.from({ length: count }, () => status)),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // fetch keeps connections alive; without this close waits for them to time out.
        server.closeAllConnections();
      }),
  };
}

function send(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : null;
}

interface Cursor {
  readonly offset: number;
  readonly params: string;
}

function encodeFingerprint(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeFingerprint(fingerprint: string): Cursor | null {
  try {
    const cursor: unknown = JSON.parse(Buffer.from(fingerprint, 'base64url').toString('utf8'));
    const { offset, params } = cursor as Partial<Cursor>;
    return typeof offset === 'number' && typeof params === 'string' ? { offset, params } : null;
  } catch {
    return null;
  }
}
