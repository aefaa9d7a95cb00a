import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { signTimed } from '../../base/timed-signature.ts';
import { SIGNATURE_HEADER } from '../../payer/callback-signature.ts';
import type {
  ProviderAccountStatus,
  ProviderKycStatus,
  ProviderTosStatus,
} from '../../payer/provider.ts';
import { accountRefusal, type Decision, magicDecision } from './rules.ts';

/**
 * A compliance provider on loopback, for tests and the sandbox (docs/guides/payers.md): the
 * REST operations src/payer/provider.ts calls, with the same shapes, and signed status
 * callbacks to the URL it is given. Verdicts come from its control surface (the returned
 * object, or `POST /control/...` over HTTP), or, with `autoDecideMs`, by themselves from the
 * magic values of rules.ts (approve unless told otherwise).
 */

const MAX_BODY_BYTES = 200_000;
const CALLBACK_ATTEMPTS = 3;

export interface FakeComplianceOptions {
  /** The HMAC key of its callbacks. */
  readonly webhookSecret: string;
  /** Where it sends callbacks; may be set later (`setCallbackUrl`). */
  readonly callbackUrl?: string | null;
  /** The `Api-Key` it requires; none when null. */
  readonly apiKey?: string | null;
  /** Decide KYC and bank accounts by themselves this long after they start (the sandbox). */
  readonly autoDecideMs?: number | null;
}

interface FakeCustomer {
  readonly id: string;
  kyc_status: ProviderKycStatus;
  tos_status: ProviderTosStatus;
  /** What it was sent (the fake keeps it in memory only, as a provider would keep it). */
  input: Record<string, unknown>;
}

interface FakeAccount {
  readonly id: string;
  readonly customer_id: string;
  status: ProviderAccountStatus;
  readonly input: Record<string, unknown>;
}

interface CallbackOutcome {
  readonly body: string;
  readonly status: number | null;
}

export interface FakeCompliance {
  readonly url: string;
  readonly customers: ReadonlyMap<string, FakeCustomer>;
  readonly accounts: ReadonlyMap<string, FakeAccount>;
  /** Every callback sent and what our server answered (null: unreachable). */
  readonly callbacks: readonly CallbackOutcome[];
  setCallbackUrl(url: string): void;
  /** Sets a customer's KYC verdict and sends the callback; resolves with our answer's status. */
  decideKyc(customerId: string, status: Decision): Promise<number | null>;
  decideAccount(accountId: string, status: 'approved' | 'failed'): Promise<number | null>;
  /**
   * Answer every operation (or only those whose path ends with `pathEnd`, such as `/kyc_links`)
   * with this HTTP status; null: back to normal.
   */
  failWith(status: number | null, pathEnd?: string): void;
  close(): Promise<void>;
}

type Answer = { readonly status: number; readonly body: unknown };

export async function startFakeCompliance(options: FakeComplianceOptions): Promise<FakeCompliance> {
  const customers = new Map<string, FakeCustomer>();
  const accounts = new Map<string, FakeAccount>();
  const idempotent = new Map<string, Answer>();
  const callbacks: CallbackOutcome[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let callbackUrl = options.callbackUrl ?? null;
  let failing: { readonly status: number; readonly pathEnd: string } | null = null;
  let url = '';

  async function notify(
    eventType: string,
    object: Record<string, unknown>,
  ): Promise<number | null> {
    if (callbackUrl === null) return null;
    const body = JSON.stringify({
      event_id: randomUUID(),
      event_type: eventType,
      event_created_at: new Date().toISOString(),
      event_object: object,
    });
    let status: number | null = null;
    for (let attempt = 0; attempt < CALLBACK_ATTEMPTS; attempt++) {
      const signature = signTimed(options.webhookSecret, Math.floor(Date.now() / 1000), body);
      status = await fetch(callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature },
        body,
        signal: AbortSignal.timeout(5_000),
      }).then(
        async (response) => {
          await response.arrayBuffer();
          return response.status;
        },
        () => null,
      );
      if (status !== null && status < 500) break;
      await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)));
    }
    callbacks.push({ body, status });
    return status;
  }

  const customerView = (c: FakeCustomer) => ({
    id: c.id,
    kyc_status: c.kyc_status,
    tos_status: c.tos_status,
  });

  function decideKyc(id: string, status: Decision): Promise<number | null> {
    const customer = customers.get(id);
    if (customer === undefined) return Promise.reject(new Error(`no customer ${id}`));
    customer.kyc_status = status;
    return notify('customer.updated', customerView(customer));
  }

  function decideAccount(id: string, status: 'approved' | 'failed'): Promise<number | null> {
    const account = accounts.get(id);
    if (account === undefined) return Promise.reject(new Error(`no external account ${id}`));
    account.status = status;
    return notify('external_account.updated', {
      id: account.id,
      customer_id: account.customer_id,
      status: account.status,
    });
  }

  function later(run: () => Promise<unknown>): void {
    if (options.autoDecideMs === null || options.autoDecideMs === undefined) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      run().catch(() => undefined);
    }, options.autoDecideMs);
    timers.add(timer);
  }

  function answer(method: string, path: string, body: Record<string, unknown>): Answer {
    const parts = path
      .split('/')
      .filter((part) => part !== '')
      .map(decodeURIComponent);
    if (method === 'POST' && path === '/v0/customers') {
      for (const field of [
        'type',
        'first_name',
        'last_name',
        'email',
        'tax_identification_number',
      ]) {
        if (typeof body[field] !== 'string' || body[field] === '') {
          return {
            status: 400,
            body: { code: 'invalid_parameters', message: `${field} is required` },
          };
        }
      }
      const customer: FakeCustomer = {
        id: `cus_${randomUUID().replaceAll('-', '')}`,
        kyc_status: 'not_started',
        tos_status: 'pending',
        input: body,
      };
      customers.set(customer.id, customer);
      return { status: 201, body: customerView(customer) };
    }
    if (method === 'GET' && parts[0] === 'kyc' && parts.length === 2) {
      return { status: 200, body: { page: 'kyc', customer: parts[1] } };
    }
    if (method === 'GET' && parts[0] === 'terms' && parts.length === 2) {
      return { status: 200, body: { page: 'terms', customer: parts[1] } };
    }
    if (parts[0] === 'control') return control(method, parts, body);
    if (parts[0] !== 'v0' || parts[1] !== 'customers' || parts[2] === undefined) {
      return { status: 404, body: { code: 'not_found', message: `${method} ${path} not found` } };
    }
    const customer = customers.get(parts[2]);
    if (customer === undefined) {
      return { status: 404, body: { code: 'not_found', message: 'customer not found' } };
    }
    const action = `${method} ${parts.slice(3).join('/')}`;
    switch (action) {
      case 'PUT ':
        // Other KYC data is a new KYC, whatever the verdict on the old one was.
        if (
          customer.kyc_status === 'incomplete' ||
          customer.kyc_status === 'rejected' ||
          !isDeepStrictEqual(customer.input, body)
        ) {
          customer.kyc_status = 'not_started';
        }
        customer.input = body;
        return { status: 200, body: customerView(customer) };
      case 'POST kyc_links': {
        const id = encodeURIComponent(customer.id);
        if (customer.kyc_status === 'not_started') {
          customer.kyc_status = 'under_review';
          later(() => decideKyc(customer.id, magicDecision(customer.input)));
        }
        return {
          status: 200,
          body: { kyc_link: `${url}/kyc/${id}`, tos_link: `${url}/terms/${id}` },
        };
      }
      case 'DELETE ':
        customers.delete(customer.id);
        for (const account of accounts.values()) {
          if (account.customer_id === customer.id) accounts.delete(account.id);
        }
        return { status: 200, body: { id: customer.id, deleted: true } };
      case 'POST tos_acceptance':
        customer.tos_status = 'approved';
        return { status: 200, body: customerView(customer) };
      case 'POST external_accounts': {
        if (accountRefusal(body)) {
          return { status: 400, body: { code: 'invalid_account', message: 'invalid account' } };
        }
        const account: FakeAccount = {
          id: `ea_${randomUUID().replaceAll('-', '')}`,
          customer_id: customer.id,
          status: 'pending',
          input: body,
        };
        accounts.set(account.id, account);
        later(() =>
          decideAccount(account.id, body.account_number === '000000000' ? 'failed' : 'approved'),
        );
        return {
          status: 201,
          body: { id: account.id, customer_id: customer.id, status: account.status },
        };
      }
      default:
        return { status: 404, body: { code: 'not_found', message: `${action} not found` } };
    }
  }

  /** `POST /control/customers/{id}/kyc {status}`, `POST /control/external_accounts/{id} {status}`. */
  function control(method: string, parts: string[], body: Record<string, unknown>): Answer {
    const status = body.status;
    if (method === 'POST' && parts[1] === 'customers' && parts[3] === 'kyc' && parts[2]) {
      if (!['approved', 'rejected', 'incomplete', 'under_review'].includes(String(status))) {
        return {
          status: 400,
          body: { message: 'status: approved|rejected|incomplete|under_review' },
        };
      }
      if (!customers.has(parts[2])) return { status: 404, body: { message: 'no such customer' } };
      void decideKyc(parts[2], status as Decision);
      return { status: 202, body: { accepted: true } };
    }
    if (method === 'POST' && parts[1] === 'external_accounts' && parts[2]) {
      if (status !== 'approved' && status !== 'failed') {
        return { status: 400, body: { message: 'status: approved|failed' } };
      }
      if (!accounts.has(parts[2])) return { status: 404, body: { message: 'no such account' } };
      void decideAccount(parts[2], status);
      return { status: 202, body: { accepted: true } };
    }
    return { status: 404, body: { message: 'unknown control operation' } };
  }

  function handle(incoming: IncomingMessage, response: ServerResponse, raw: string): void {
    const method = incoming.method ?? 'GET';
    const path = new URL(incoming.url ?? '/', 'http://fake').pathname;
    const isApi = path.startsWith('/v0/');
    if (isApi && failing !== null && path.endsWith(failing.pathEnd)) {
      send(response, { status: failing.status, body: { message: 'failing' } });
      return;
    }
    if (isApi && options.apiKey && incoming.headers['api-key'] !== options.apiKey) {
      send(response, {
        status: 401,
        body: { code: 'unauthorized', message: 'bad Api-Key' },
      });
      return;
    }
    let body: Record<string, unknown> = {};
    if (raw !== '') {
      try {
        const parsed: unknown = JSON.parse(raw);
        if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
      } catch {
        send(response, { status: 400, body: { message: 'body must be JSON' } });
        return;
      }
    }
    const key = incoming.headers['idempotency-key'];
    const remembered = typeof key === 'string' ? idempotent.get(`${path}|${key}`) : undefined;
    if (remembered !== undefined) {
      send(response, remembered);
      return;
    }
    const result = answer(method, path, body);
    if (typeof key === 'string' && result.status < 300) idempotent.set(`${path}|${key}`, result);
    send(response, result);
  }

  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    incoming.on('end', () => {
      if (size > MAX_BODY_BYTES)
        return send(response, { status: 413, body: { message: 'too large' } });
      handle(incoming, response, Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    customers,
    accounts,
    callbacks,
    setCallbackUrl: (next) => {
      callbackUrl = next;
    },
    decideKyc,
    decideAccount,
    failWith: (status, pathEnd = '') => {
      failing = status === null ? null : { status, pathEnd };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(response: ServerResponse, answer: Answer): void {
  response.statusCode = answer.status;
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify(answer.body));
}
