import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Token } from '@lifi/types';
import { type Address, getAddress } from 'viem';
import { buildRoute, type FakeToken, lifiToken, type Pricing, tokenKey } from './quote.ts';
import { allowsBridge, parseQuoteRequest, parseStep, type RouteRequest } from './route-request.ts';
import { statusAnswer, type TransferOutcome } from './transfer-status.ts';

/**
 * A LI.FI-compatible aggregator on loopback, for tests and the sandbox: the three operations
 * payreq uses (`POST /v1/quote/contractCalls`, `POST /v1/advanced/stepTransaction`,
 * `GET /v1/status`) with LI.FI's shapes, routing through Across only. Its control surface is
 * the returned object: make it fail (errors, hangs, slowness), pay someone else, issue quotes
 * that expire, and say where each transfer stands; `received` lists every request it got.
 */

/** Largest request body accepted, in bytes. */
const MAX_BODY_BYTES = 1_000_000;
/** Where the bridged tokens and the message land when the sandbox names no handler. */
const DEFAULT_RECIPIENT = getAddress('0x00000000000000000000000000000000000a11c3');
const DEFAULT_PRICING: Pricing = { feeBps: 10, feeFlat: '0', executionDurationSeconds: 60 };
const DEFAULT_QUOTE_LIFETIME_SECONDS = 300;

export interface FakeAggregatorOptions {
  /** The tokens it routes, with their decimals; any other is refused. */
  readonly tokens: readonly FakeToken[];
  /** The bridge contract (Across SpokePool) each source chain's transaction calls. */
  readonly spokePools: Readonly<Record<number, Address>>;
  /** Receives the bridged tokens and runs the message on the destination chain. */
  readonly recipient?: Address;
  readonly pricing?: Partial<Pricing>;
  /** `fillDeadline - quoteTimestamp` of the deposits it quotes. */
  readonly quoteLifetimeSeconds?: number;
  /** Its clock, in ms (tests move it); `Date.now` otherwise. */
  readonly now?: () => number;
}

/** How it fails: an HTTP error (503 unless told), no answer at all, or a late one. */
type FakeFault =
  | { readonly kind: 'error'; readonly status?: number }
  | { readonly kind: 'hang' }
  | { readonly kind: 'slow'; readonly delayMs: number };

interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

interface IssuedQuote {
  readonly id: string;
  /** Unix seconds: the deposit's `fillDeadline`. */
  readonly expiresAt: number;
  readonly request: RouteRequest;
}

export interface FakeAggregator {
  readonly url: string;
  readonly received: readonly ReceivedRequest[];
  fail(fault: FakeFault): void;
  recover(): void;
  /** Every destination call it hands out pays `payee` instead (null: back to honest). */
  payElsewhere(payee: Address | null): void;
  /** Quotes from now on expire this long after they are made (0: already expired). */
  setQuoteLifetime(seconds: number): void;
  setTransfer(txHash: string, outcome: TransferOutcome): void;
  /** The latest quote or step transaction made under this step id. */
  issued(stepId: string): IssuedQuote | undefined;
  close(): Promise<void>;
}

export async function startFakeAggregator(options: FakeAggregatorOptions): Promise<FakeAggregator> {
  const now = options.now ?? Date.now;
  const recipient = getAddress(options.recipient ?? DEFAULT_RECIPIENT);
  const pricing: Pricing = { ...DEFAULT_PRICING, ...options.pricing };
  const tokens = new Map<string, Token>(
    options.tokens.map((token) => [tokenKey(token.chainId, token.address), lifiToken(token)]),
  );
  const received: ReceivedRequest[] = [];
  const transfers = new Map<string, TransferOutcome>();
  const quotes = new Map<string, IssuedQuote>();
  let fault: FakeFault | null = null;
  let payee: Address | null = null;
  let lifetime = options.quoteLifetimeSeconds ?? DEFAULT_QUOTE_LIFETIME_SECONDS;

  function route(stepId: string, request: RouteRequest): Answer {
    const spokePool = options.spokePools[request.fromChain];
    if (spokePool === undefined) {
      return noQuote(`No bridge from chain ${request.fromChain}`);
    }
    const quoteTimestamp = Math.floor(now() / 1000);
    const outcome = buildRoute(
      request,
      {
        tokens,
        spokePool,
        recipient,
        pricing,
        quoteTimestamp,
        fillDeadline: quoteTimestamp + lifetime,
        payElsewhere: payee,
      },
      stepId,
    );
    if (!outcome.ok)
      return { status: outcome.status, body: { code: outcome.code, message: outcome.message } };
    quotes.set(stepId, { id: stepId, expiresAt: quoteTimestamp + lifetime, request });
    return { status: 200, body: outcome.step };
  }

  function answer(request: ReceivedRequest): Answer {
    if (request.method === 'POST' && request.path === '/v1/quote/contractCalls') {
      if (!allowsBridge(request.body, 'across'))
        return noQuote('No available quotes for the requested transfer');
      const parsed = parseQuoteRequest(request.body);
      return parsed.ok ? route(randomUUID(), parsed.value) : invalid(parsed.message);
    }
    if (request.method === 'POST' && request.path === '/v1/advanced/stepTransaction') {
      const parsed = parseStep(request.body);
      return parsed.ok ? route(parsed.value.id, parsed.value.request) : invalid(parsed.message);
    }
    if (request.method === 'GET' && request.path === '/v1/status') {
      const { txHash, fromChain, toChain } = request.query;
      if (txHash === undefined || !/^0x[0-9a-fA-F]{64}$/.test(txHash))
        return invalid('txHash must be a transaction hash');
      const outcome = transfers.get(txHash.toLowerCase()) ?? { status: 'NOT_FOUND' };
      const query = { txHash, fromChain: Number(fromChain ?? 0), toChain: Number(toChain ?? 0) };
      return { status: 200, body: statusAnswer(outcome, query) };
    }
    return {
      status: 404,
      body: { code: 1003, message: `${request.method} ${request.path} not found` },
    };
  }

  /** A bug of the fake answers 500, as LI.FI's own would, rather than leave the caller waiting. */
  function answerSafely(request: ReceivedRequest): Answer {
    try {
      return answer(request);
    } catch (error) {
      return { status: 500, body: { code: 1000, message: `Fake aggregator: ${String(error)}` } };
    }
  }

  const server = createServer((incoming, response) => {
    readBody(incoming).then(
      (body) => {
        const url = new URL(incoming.url ?? '/', 'http://fake');
        const request: ReceivedRequest = {
          method: incoming.method ?? 'GET',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: incoming.headers,
          body,
        };
        received.push(request);
        const current = fault;
        if (current?.kind === 'hang') return;
        if (current?.kind === 'error') {
          send(response, {
            status: current.status ?? 503,
            body: { code: 1006, message: 'Service unavailable' },
          });
          return;
        }
        const delay = current?.kind === 'slow' ? current.delayMs : 0;
        setTimeout(() => send(response, answerSafely(request)), delay);
      },
      () => send(response, invalid('body must be JSON')),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    received,
    fail: (next) => {
      fault = next;
    },
    recover: () => {
      fault = null;
    },
    payElsewhere: (next) => {
      payee = next;
    },
    setQuoteLifetime: (seconds) => {
      lifetime = seconds;
    },
    setTransfer: (txHash, outcome) => {
      transfers.set(txHash.toLowerCase(), outcome);
    },
    issued: (stepId) => quotes.get(stepId),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

function invalid(message: string): Answer {
  return { status: 400, body: { code: 1011, message } };
}

function noQuote(message: string): Answer {
  return { status: 404, body: { code: 1002, message } };
}

function send(response: ServerResponse, answer: Answer): void {
  if (response.destroyed) return;
  response.writeHead(answer.status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(answer.body));
}

/** The JSON body, undefined when there is none; rejects on bad JSON or past the size bound. */
function readBody(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) request.destroy();
      else chunks.push(chunk);
    });
    request.on('error', reject);
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text === '') return resolve(undefined);
      try {
        resolve(JSON.parse(text) as unknown);
      } catch (error) {
        reject(error);
      }
    });
  });
}
