import { evmToTron, isTronAddress } from './tron-address.ts';
import { nodeText } from './tron-node-text.ts';

/**
 * A client for the parts of a TronGrid-compatible API that payreq uses: the full-node
 * `/wallet/*` calls for blocks and transactions and TronGrid's `/v1` event index for the fee
 * proxy's events (payment detection), and `/wallet/broadcasttransaction` (the link relay). Everything leaves here normalised: addresses base58, amounts bigint,
 * the indexed reference as 0x-prefixed lower-case hex, ids lower-case hex without `0x` (the way
 * Tron tools print them).
 */

/** Per request, body included. */
const TRONGRID_TIMEOUT_MS = 10_000;
/** Events per page: TronGrid's maximum. */
const EVENTS_PAGE_LIMIT = 200;

export type TronGridFailure = 'http' | 'timeout' | 'network' | 'bad_response';

/**
 * Any failure to get a usable answer. `status` is the HTTP status of a non-2xx answer or of a
 * body that was not JSON; null for timeouts, network failures and JSON of the wrong shape.
 * Messages name the method and path only: never the API key, which travels in a header.
 */
export class TronGridError extends Error {
  readonly status: number | null;
  readonly reason: TronGridFailure;

  constructor(reason: TronGridFailure, status: number | null, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'TronGridError';
    this.reason = reason;
    this.status = status;
  }
}

export interface TronBlock {
  readonly number: bigint;
  readonly hash: string;
  readonly timestamp: Date;
}

/** One `TransferWithReferenceAndFee` event of the ERC20FeeProxy, as TronGrid indexed it. */
interface TronFeeProxyEvent {
  readonly transactionId: string;
  readonly blockNumber: bigint;
  readonly blockTimestamp: Date;
  /** The event's position, as TronGrid numbers it. */
  readonly eventIndex: number;
  readonly eventName: string;
  readonly contractAddress: string;
  readonly tokenAddress: string;
  readonly to: string;
  readonly amount: bigint;
  /** keccak256 of the reference bytes: an indexed `bytes` is only ever seen as its hash. */
  readonly referenceTopic: `0x${string}`;
  readonly feeAmount: bigint;
  readonly feeAddress: string;
}

interface ContractEventsQuery {
  readonly eventName: string;
  readonly minBlockTimestamp: Date;
  readonly maxBlockTimestamp: Date;
  readonly onlyConfirmed: boolean;
  /** Resume from a page TronGrid handed out earlier. */
  readonly fingerprint?: string;
}

export interface TronGridClient {
  getNowBlock(): Promise<TronBlock>;
  getBlockByNumber(number: bigint): Promise<TronBlock>;
  /** Every matching event, oldest first, all pages followed. */
  contractEvents(contract: string, query: ContractEventsQuery): Promise<TronFeeProxyEvent[]>;
  /** The transaction's owner (base58); rejects when the node does not know the transaction. */
  transactionSender(txId: string): Promise<string>;
  /**
   * Hands a signed transaction to the node. A refusal is an answer (`accepted: false`), not an
   * error; TronGridError means the node could not be asked or answered nonsense.
   */
  broadcastTransaction(transaction: SignedTronTransaction): Promise<BroadcastAnswer>;
}

/** A signed transaction as TronWeb hands it out and a full node takes it. */
export interface SignedTronTransaction {
  readonly txID: string;
  readonly raw_data: Readonly<Record<string, unknown>>;
  readonly raw_data_hex: string;
  readonly signature: readonly string[];
  readonly visible?: boolean;
}

/** What the node said; a refusal's message comes decoded (nodes send it as hex text). */
type BroadcastAnswer =
  | {
      readonly accepted: true;
      readonly txid: string;
      readonly code?: string;
      readonly message?: string;
    }
  | { readonly accepted: false; readonly code: string; readonly message: string };

export interface TronGridDeps {
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly fetch?: typeof fetch;
}

export function createTronGridClient(deps: TronGridDeps): TronGridClient {
  const base = deps.baseUrl.replace(/\/+$/, '');
  const doFetch = deps.fetch ?? fetch;

  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const what = `TronGrid ${method} ${path.replace(/\?.*$/, '')}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (deps.apiKey) headers['TRON-PRO-API-KEY'] = deps.apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    let text: string;
    try {
      response = await doFetch(`${base}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(TRONGRID_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (error) {
      if (error instanceof Error && error.name === 'TimeoutError')
        throw new TronGridError('timeout', null, `${what} timed out`);
      throw new TronGridError('network', null, `${what} failed`, error);
    }
    if (!response.ok)
      throw new TronGridError('http', response.status, `${what} answered ${response.status}`);
    try {
      return JSON.parse(text);
    } catch {
      throw new TronGridError('bad_response', response.status, `${what} answered invalid JSON`);
    }
  }

  async function block(method: 'POST', path: string, body?: unknown): Promise<TronBlock> {
    const raw = record(await call(method, path, body), path);
    // A full node answers `{}`, with 200, for a height it does not have.
    if (raw.blockID === undefined) throw bad(path, 'no such block');
    const header = record(record(raw.block_header, path).raw_data, path);
    // Protobuf JSON leaves out zero values, so the genesis block carries no number (and may
    // carry no time). Any other block without a time is a broken answer: taken as 1970, it
    // would turn the events' time window upside down and the range would scan as empty.
    const number = integer(header.number ?? 0, path);
    if (header.timestamp === undefined && number !== 0n) throw bad(path, 'a block without a time');
    return {
      number,
      hash: hexId(raw.blockID, path),
      timestamp: new Date(Number(integer(header.timestamp ?? 0, path))),
    };
  }

  return {
    getNowBlock: () => block('POST', '/wallet/getnowblock'),

    getBlockByNumber: async (number) => {
      const found = await block('POST', '/wallet/getblockbynum', { num: Number(number) });
      if (found.number !== number) throw bad('/wallet/getblockbynum', `asked ${number}`);
      return found;
    },

    async contractEvents(contract, query) {
      const path = `/v1/contracts/${encodeURIComponent(contract)}/events`;
      const params = new URLSearchParams({
        event_name: query.eventName,
        min_block_timestamp: String(query.minBlockTimestamp.getTime()),
        max_block_timestamp: String(query.maxBlockTimestamp.getTime()),
      });
      if (query.onlyConfirmed) params.set('only_confirmed', 'true');
      params.set('order_by', 'block_timestamp,asc');
      params.set('limit', String(EVENTS_PAGE_LIMIT));
      const events: TronFeeProxyEvent[] = [];
      // Pages are cut at an offset, so an event indexed while we page can come back twice.
      const seen = new Set<string>();
      const fingerprints = new Set<string>();
      let fingerprint = query.fingerprint;
      for (;;) {
        // TronGrid refuses a fingerprint unless the rest of the query is the same as before.
        if (fingerprint !== undefined) params.set('fingerprint', fingerprint);
        const page = record(await call('GET', `${path}?${params}`), path);
        if (page.success === false) throw bad(path, 'success is false');
        if (!Array.isArray(page.data)) throw bad(path, 'no data');
        for (const item of page.data) {
          const event = feeProxyEvent(item, path);
          const key = `${event.transactionId}:${event.eventIndex}`;
          if (seen.has(key)) continue;
          seen.add(key);
          events.push(event);
        }
        const next = page.meta === undefined ? undefined : record(page.meta, path).fingerprint;
        if (next === undefined || next === null || next === '') return events;
        if (typeof next !== 'string') throw bad(path, 'fingerprint is not a string');
        // A server handing back a fingerprint it already gave would have us loop for ever.
        if (fingerprints.has(next)) throw bad(path, 'fingerprint repeated');
        fingerprints.add(next);
        fingerprint = next;
      }
    },

    async transactionSender(txId) {
      const path = '/wallet/gettransactionbyid';
      const raw = record(await call('POST', path, { value: txId }), path);
      // The id comes from an event the index has just served: a node that does not know it
      // (`{}`) is behind or broken, and its silence must not be recorded as "no payer".
      if (raw.raw_data === undefined) throw bad(path, 'no such transaction');
      const contracts = record(raw.raw_data, path).contract;
      if (!Array.isArray(contracts) || contracts.length === 0) throw bad(path, 'no contract');
      const value = record(record(contracts[0], path).parameter, path).value;
      return address(record(value, path).owner_address, path);
    },

    async broadcastTransaction(transaction) {
      const path = '/wallet/broadcasttransaction';
      const raw = record(await call('POST', path, transaction), path);
      const code = typeof raw.code === 'string' ? raw.code : undefined;
      const message = typeof raw.message === 'string' ? raw.message : undefined;
      if (raw.result === true) {
        return {
          accepted: true,
          txid: typeof raw.txid === 'string' && raw.txid !== '' ? raw.txid : transaction.txID,
          ...(code !== undefined && { code }),
          ...(message !== undefined && { message }),
        };
      }
      // A full node refuses with 200, `result` false or absent, and a code.
      if (code === undefined) throw bad(path, 'neither a result nor a code');
      return { accepted: false, code, message: nodeText(message ?? '') };
    },
  };
}

function feeProxyEvent(item: unknown, path: string): TronFeeProxyEvent {
  const event = record(item, path);
  const result = record(event.result, path);
  return {
    transactionId: hexId(event.transaction_id, path),
    blockNumber: integer(event.block_number, path),
    blockTimestamp: new Date(Number(integer(event.block_timestamp, path))),
    eventIndex: Number(integer(event.event_index, path)),
    eventName: text(event.event_name, path),
    contractAddress: address(event.contract_address, path),
    tokenAddress: address(result.tokenAddress, path),
    to: address(result.to, path),
    amount: integer(result.amount, path),
    referenceTopic: topic(result.paymentReference, path),
    feeAmount: integer(result.feeAmount, path),
    feeAddress: address(result.feeAddress, path),
  };
}

function bad(path: string, detail: string): TronGridError {
  return new TronGridError('bad_response', null, `TronGrid ${path} answered ${detail}`);
}

function record(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw bad(path, 'an unexpected shape');
  return value as Record<string, unknown>;
}

function text(value: unknown, path: string): string {
  if (typeof value !== 'string') throw bad(path, 'a missing field');
  return value;
}

/** Decimal strings (uint256 values) or JSON numbers small enough to be exact. */
function integer(value: unknown, path: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  throw bad(path, 'a bad integer');
}

/** Transaction and block ids: 32 bytes, printed lower-case without `0x` as Tron does. */
function hexId(value: unknown, path: string): string {
  const hex = text(value, path).toLowerCase().replace(/^0x/, '');
  if (!/^[0-9a-f]{64}$/.test(hex)) throw bad(path, 'a bad id');
  return hex;
}

function topic(value: unknown, path: string): `0x${string}` {
  return `0x${hexId(value, path)}`;
}

/** `0x` + 20 bytes (event results), `41` + 20 bytes (full node) or already base58. */
function address(value: unknown, path: string): string {
  const raw = text(value, path);
  if (isTronAddress(raw)) return raw;
  const hex = /^(?:0x|41)([0-9a-fA-F]{40})$/.exec(raw)?.[1];
  if (hex === undefined) throw bad(path, 'a bad address');
  return evmToTron(`0x${hex}`);
}
