import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { type Address, getAddress, parseUnits, toHex } from 'viem';
import { createPoller, type Poller } from '../../base/poller.ts';
import { signTimed } from '../../base/timed-signature.ts';
import { type Outcome, outcomeOfAmount, stepsOf } from './outcomes.ts';

/**
 * A local off-ramp provider on loopback, for tests and the sandbox: the provider's
 * `POST /v0/transfers` (idempotent by `Idempotency-Key`, a fresh deposit address per transfer)
 * and `GET /v0/transfers/{id}`. Once a transfer's deposit arrives (it watches the deposit
 * addresses' balances when given `watch`, or is told: `POST /control/transfers/{id}/deposit`)
 * it reports each step to the callback URL, signed as the real one signs, `stepDelayMs` apart.
 * What happens is chosen per transfer: by its amount (outcomes.ts: cents `.13` bounce, `.66`
 * fail, `.42` a `retry_required`) or `POST /control/transfers/{id}/outcome {"outcome": "complete"|"failed"|"bounced"|"retry"}`.
 */

const MAX_BODY_BYTES = 100_000;
/** Attempts of one callback before the fake gives up on it. */
const CALLBACK_ATTEMPTS = 5;

export interface FakeOfframpOptions {
  /** Where callbacks go (our `POST /v2/offramp/callbacks`); settable later with `setCallbackUrl`. */
  readonly callbackUrl?: string | null;
  readonly webhookSecret: string;
  /** Required as `Api-Key` when set. */
  readonly apiKey?: string;
  /**
   * Between two steps of a transfer's progress; null: each step after the first waits for
   * `POST /control/transfers/{id}/advance` (tests that check each step's event in turn).
   */
  readonly stepDelayMs?: number | null;
  /** Watch deposit addresses' token balances, every `pollMs`. */
  readonly watch?: {
    readonly balanceOf: (rail: string, address: Address) => Promise<bigint>;
    readonly pollMs: number;
    readonly logger: Logger;
  };
}

interface FakeTransfer {
  readonly id: string;
  readonly idempotencyKey: string;
  readonly rail: string;
  readonly currency: string;
  readonly amount: string;
  readonly externalAccountId: string;
  readonly clientReferenceId: string;
  readonly depositAddress: Address;
  outcome: Outcome;
  state: string;
  funded: boolean;
  /** Advances asked for and not yet taken (manual steps). */
  advances: number;
  wake: (() => void) | null;
}

interface SentCallback {
  readonly transferId: string;
  readonly state: string;
  readonly status: number;
}

export interface FakeOfframp {
  readonly url: string;
  readonly transfers: ReadonlyMap<string, FakeTransfer>;
  /** Each callback it sent, with our answer's status. */
  readonly sent: readonly SentCallback[];
  setCallbackUrl(url: string): void;
  close(): Promise<void>;
}

export async function startFakeOfframp(options: FakeOfframpOptions): Promise<FakeOfframp> {
  const transfers = new Map<string, FakeTransfer>();
  const byKey = new Map<string, FakeTransfer>();
  const sent: SentCallback[] = [];
  let callbackUrl = options.callbackUrl ?? null;
  const stepDelayMs = options.stepDelayMs === undefined ? 1_000 : options.stepDelayMs;
  let closing = false;

  async function post(transfer: FakeTransfer, state: string): Promise<void> {
    const body = JSON.stringify({
      event_id: randomUUID(),
      event_type: 'transfer.updated',
      event_created_at: new Date().toISOString(),
      data: {
        id: transfer.id,
        state,
        amount: transfer.amount,
        client_reference_id: transfer.clientReferenceId,
        source: { payment_rail: transfer.rail, currency: transfer.currency },
        destination: { external_account_id: transfer.externalAccountId },
      },
    });
    for (let attempt = 1; attempt <= CALLBACK_ATTEMPTS && !closing; attempt++) {
      if (callbackUrl === null) return;
      const signature = signTimed(options.webhookSecret, Math.floor(Date.now() / 1000), body);
      const status = await fetch(callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-offramp-signature': signature },
        body,
        signal: AbortSignal.timeout(10_000),
      }).then(
        async (response) => {
          await response.body?.cancel();
          return response.status;
        },
        () => 0,
      );
      sent.push({ transferId: transfer.id, state, status });
      if (status >= 200 && status < 300) return;
      await delay(stepDelayMs ?? 100);
    }
  }

  function advanced(transfer: FakeTransfer): Promise<void> {
    if (transfer.advances > 0) {
      transfer.advances -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      transfer.wake = resolve;
    });
  }

  /** The deposit arrived: each step of its outcome, in order. */
  async function progress(transfer: FakeTransfer): Promise<void> {
    if (transfer.funded) return;
    transfer.funded = true;
    for (const [index, state] of stepsOf(transfer.outcome).entries()) {
      if (closing) return;
      if (stepDelayMs !== null) await delay(stepDelayMs);
      else if (index > 0) await advanced(transfer);
      if (closing) return;
      transfer.state = state;
      await post(transfer, state);
    }
  }

  const poller: Poller | null = options.watch
    ? createPoller({
        logger: options.watch.logger,
        failure: { level: 'warn', message: 'fake off-ramp could not read a deposit balance' },
        pollMs: options.watch.pollMs,
        round: async () => {
          const { watch } = options;
          if (!watch) return false;
          for (const transfer of transfers.values()) {
            if (transfer.funded) continue;
            const balance = await watch.balanceOf(transfer.rail, transfer.depositAddress);
            if (balance >= parseUnits(transfer.amount, 6)) void progress(transfer);
          }
          return false;
        },
      })
    : null;

  function create(headers: IncomingMessage['headers'], body: unknown): Answer {
    if (options.apiKey !== undefined && headers['api-key'] !== options.apiKey)
      return { status: 401, body: { code: 'unauthorized', message: 'Invalid Api-Key' } };
    const key = headers['idempotency-key'];
    if (typeof key !== 'string' || key === '')
      return { status: 400, body: { code: 'invalid', message: 'Idempotency-Key is required' } };
    const again = byKey.get(key);
    if (again) return { status: 201, body: view(again) };
    const order = orderOf(body);
    if (!order) return { status: 400, body: { code: 'invalid', message: 'Invalid transfer' } };
    const transfer: FakeTransfer = {
      id: `tr_${randomUUID()}`,
      idempotencyKey: key,
      ...order,
      depositAddress: getAddress(toHex(randomBytes(20))),
      outcome: outcomeOfAmount(order.amount),
      state: 'awaiting_funds',
      funded: false,
      advances: 0,
      wake: null,
    };
    transfers.set(transfer.id, transfer);
    byKey.set(key, transfer);
    return { status: 201, body: view(transfer) };
  }

  function control(path: string, body: unknown): Answer | null {
    const match = /^\/control\/transfers\/([^/]+)\/(deposit|outcome|advance)$/.exec(path);
    const transfer = match ? transfers.get(match[1] ?? '') : undefined;
    if (!match || !transfer) return null;
    if (match[2] === 'deposit') {
      void progress(transfer);
      return { status: 202, body: view(transfer) };
    }
    if (match[2] === 'advance') {
      const wake = transfer.wake;
      transfer.wake = null;
      if (wake) wake();
      else transfer.advances += 1;
      return { status: 202, body: view(transfer) };
    }
    const outcome =
      typeof body === 'object' && body !== null && 'outcome' in body ? body.outcome : undefined;
    if (
      outcome !== 'complete' &&
      outcome !== 'failed' &&
      outcome !== 'bounced' &&
      outcome !== 'retry'
    )
      return { status: 400, body: { message: 'outcome: complete, failed, bounced or retry' } };
    transfer.outcome = outcome;
    return { status: 200, body: view(transfer) };
  }

  function answer(
    method: string,
    path: string,
    headers: IncomingMessage['headers'],
    body: unknown,
  ): Answer {
    if (method === 'POST' && path === '/v0/transfers') return create(headers, body);
    const read = /^\/v0\/transfers\/([^/]+)$/.exec(path);
    if (method === 'GET' && read) {
      const transfer = transfers.get(read[1] ?? '');
      return transfer ? { status: 200, body: view(transfer) } : notFound();
    }
    if (method === 'POST') return control(path, body) ?? notFound();
    return notFound();
  }

  const server = createServer((incoming, response) => {
    readBody(incoming).then(
      (body) => {
        const path = new URL(incoming.url ?? '/', 'http://fake').pathname;
        send(response, answer(incoming.method ?? 'GET', path, incoming.headers, body));
      },
      () => send(response, { status: 400, body: { message: 'Invalid body' } }),
    );
  });
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  poller?.start();
  return {
    url: `http://127.0.0.1:${port}`,
    transfers,
    sent,
    setCallbackUrl(url) {
      callbackUrl = url;
    },
    async close() {
      closing = true;
      for (const transfer of transfers.values()) transfer.wake?.();
      await poller?.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

const notFound = (): Answer => ({ status: 404, body: { code: 'not_found', message: 'Not found' } });

function view(transfer: FakeTransfer) {
  return {
    id: transfer.id,
    state: transfer.state,
    amount: transfer.amount,
    client_reference_id: transfer.clientReferenceId,
    source: { payment_rail: transfer.rail, currency: transfer.currency },
    destination: { external_account_id: transfer.externalAccountId },
    source_deposit_instructions: {
      payment_rail: transfer.rail,
      currency: transfer.currency,
      amount: transfer.amount,
      to_address: transfer.depositAddress,
    },
  };
}

function orderOf(body: unknown) {
  if (typeof body !== 'object' || body === null) return null;
  const get = (from: unknown, key: string): unknown =>
    typeof from === 'object' && from !== null && key in from
      ? Object.getOwnPropertyDescriptor(from, key)?.value
      : undefined;
  const amount = get(body, 'amount');
  const rail = get(get(body, 'source'), 'payment_rail');
  const currency = get(get(body, 'source'), 'currency');
  const externalAccountId = get(get(body, 'destination'), 'external_account_id');
  const clientReferenceId = get(body, 'client_reference_id');
  if (
    typeof amount !== 'string' ||
    !/^\d+(\.\d{1,6})?$/.test(amount) ||
    typeof rail !== 'string' ||
    currency !== 'usdc' ||
    typeof externalAccountId !== 'string' ||
    typeof clientReferenceId !== 'string'
  )
    return null;
  return { amount, rail, currency, externalAccountId, clientReferenceId };
}

function send(response: ServerResponse, answer: Answer): void {
  response.statusCode = answer.status;
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify(answer.body));
}

function readBody(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text === '') resolve(null);
      else {
        try {
          resolve(JSON.parse(text));
        } catch (error) {
          reject(error);
        }
      }
    });
    request.on('error', reject);
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
