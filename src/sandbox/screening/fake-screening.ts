import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScreeningProviderName } from '../../db/schema.ts';
import { HYPERNATIVE_SCREEN_PATH } from '../../screening/hypernative.ts';
import { MERKLE_SCIENCE_SCREEN_PATH } from '../../screening/merkle-science.ts';

/**
 * Both screening providers on loopback, for tests and the sandbox: Hypernative's screener and
 * Merkle Science's address operation, each in its own shape, from one server. A configured set
 * of addresses is sanctioned (any case for EVM); every other is clean. Each provider can be
 * made to fail (an HTTP error, or no answer at all) to exercise the backup and the policy;
 * `received` lists every call, by provider.
 */

const MAX_BODY_BYTES = 100_000;
/** `POST /control/sanction|clear {address}`, `/control/fail {provider, kind?: "hang"}`, `/control/recover {provider?}`. */
export const CONTROL_PATH = '/control/';

type FakeScreeningFault =
  | { readonly kind: 'error'; readonly status?: number }
  | { readonly kind: 'hang' };

interface FakeScreeningCall {
  readonly provider: ScreeningProviderName;
  readonly address: string;
  readonly apiKey: string | null;
}

export interface FakeScreening {
  readonly url: string;
  readonly received: readonly FakeScreeningCall[];
  sanction(address: string): void;
  fail(provider: ScreeningProviderName, fault: FakeScreeningFault): void;
  recover(provider?: ScreeningProviderName): void;
  close(): Promise<void>;
}

function key(address: string): string {
  return address.startsWith('0x') || address.startsWith('0X') ? address.toLowerCase() : address;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function field(body: unknown, name: string): string | null {
  if (typeof body !== 'object' || body === null || !(name in body)) return null;
  const value: unknown = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : null;
}

export async function startFakeScreening(
  options: { readonly sanctioned?: readonly string[] } = {},
): Promise<FakeScreening> {
  const sanctioned = new Set((options.sanctioned ?? []).map(key));
  const faults = new Map<ScreeningProviderName, FakeScreeningFault>();
  const received: FakeScreeningCall[] = [];
  const hanging = new Set<ServerResponse>();

  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const provider: ScreeningProviderName | null =
      path === HYPERNATIVE_SCREEN_PATH
        ? 'hypernative'
        : path === MERKLE_SCIENCE_SCREEN_PATH
          ? 'merklescience'
          : null;
    if (request.method === 'POST' && path?.startsWith(CONTROL_PATH)) {
      control(request, response, path.slice(CONTROL_PATH.length));
      return;
    }
    if (request.method !== 'POST' || provider === null) {
      send(response, 404, { message: 'Not found' });
      return;
    }
    readBody(request).then(
      (body) => {
        const address = field(body, provider === 'hypernative' ? 'address' : 'identifier');
        const headerKey = request.headers['x-api-key'];
        received.push({
          provider,
          address: address ?? '',
          apiKey: typeof headerKey === 'string' ? headerKey : null,
        });
        const fault = faults.get(provider);
        if (fault?.kind === 'hang') {
          hanging.add(response);
          response.on('close', () => hanging.delete(response));
          return;
        }
        if (fault?.kind === 'error') {
          send(response, fault.status ?? 503, { message: 'Service unavailable' });
          return;
        }
        if (address === null) {
          send(response, 400, { message: 'address is required' });
          return;
        }
        const denied = sanctioned.has(key(address));
        if (provider === 'hypernative') {
          send(response, 200, {
            success: true,
            data: {
              address,
              recommendation: denied ? 'Deny' : 'Approve',
              severity: denied ? 'High' : 'Low',
              reasons: denied ? ['Sanctioned entity (OFAC SDN list)'] : [],
            },
          });
        } else {
          send(response, 200, {
            identifier: address,
            risk_level: denied ? 5 : 0,
            risk_level_verbose: denied ? 'Critical' : 'No Risk',
            tags: denied ? ['Sanctions'] : [],
          });
        }
      },
      () => send(response, 400, { message: 'Bad JSON' }),
    );
  });
  /** The sandbox's controls (docs/guides/restricting-payers.md#on-the-sandbox), loopback only. */
  function control(request: IncomingMessage, response: ServerResponse, action: string): void {
    readBody(request).then(
      (body) => {
        const address = field(body, 'address');
        const named = field(body, 'provider');
        const provider = named === 'hypernative' || named === 'merklescience' ? named : undefined;
        if (action === 'sanction' && address !== null) sanctioned.add(key(address));
        else if (action === 'clear' && address !== null) sanctioned.delete(key(address));
        else if (action === 'fail' && provider !== undefined)
          faults.set(
            provider,
            field(body, 'kind') === 'hang' ? { kind: 'hang' } : { kind: 'error' },
          );
        else if (action === 'recover') {
          if (provider) faults.delete(provider);
          else faults.clear();
        } else {
          send(response, 400, { message: 'Unknown control or missing field' });
          return;
        }
        send(response, 200, { sanctioned: [...sanctioned], failing: [...faults.keys()] });
      },
      () => send(response, 400, { message: 'Bad JSON' }),
    );
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    sanction(address) {
      sanctioned.add(key(address));
    },
    fail(provider, fault) {
      faults.set(provider, fault);
    },
    recover(provider) {
      if (provider) faults.delete(provider);
      else faults.clear();
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
