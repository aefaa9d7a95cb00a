import { createHash, randomBytes } from 'node:crypto';
import {
  type Address,
  type Hex,
  isHex,
  keccak256,
  parseEventLogs,
  recoverAddress,
  stringToHex,
  toHex,
} from 'viem';
import { tronToEvm } from '../src/chains/tron-address.ts';
import { erc20FeeProxyAbi } from '../src/payments/abis.ts';
import {
  decodeTronRaw,
  decodeTronTrigger,
  encodeTronRaw,
  encodeTronTrigger,
  TRIGGER_SMART_CONTRACT,
  TRIGGER_TYPE_URL,
  type TronRaw,
  type TronTrigger,
} from '../src/payments/tron-protobuf.ts';
import { tronRawFromJson, tronRawToJson } from '../src/payments/tron-raw-json.ts';
import type { LocalChain } from '../src/sandbox/chain.ts';
import { type FakeTronGrid, startFakeTronGrid } from './fake-tron-grid.ts';

/**
 * A Tron network for tests, over real HTTP on loopback: the TronGrid stand-in (blocks, events,
 * senders) plus a full node's write side, `/wallet/triggersmartcontract`,
 * `/wallet/broadcasttransaction` and `/wallet/gettransactioninfobyid`, as TronWeb calls them.
 *
 * Tron runs the EVM's code on the same 20 bytes, so the contracts run on a local EVM at the
 * 20-byte forms of their Tron addresses: a broadcast is checked (its id is the SHA-256 of its
 * raw data, its signature recovers the owner), then executed there as the owner; the node
 * puts it in a new block and indexes the fee proxy's events as TronGrid does. As on a real node,
 * `raw_data_hex` is the protobuf encoding of `Transaction.raw` and `raw_data` its JSON form; a
 * broadcast runs the call its bytes hold, once `raw_data` encodes to those same bytes.
 */

/** A built transaction must be broadcast within a minute, as on Tron. */
const EXPIRATION_MS = 60_000;
const BLOCK_INTERVAL_MS = 3_000;
/** Gas for each call on the EVM underneath: enough for a batch, so nothing is estimated. */
const GAS = 3_000_000n;

export interface FakeTronNode {
  readonly url: string;
  readonly grid: FakeTronGrid;
  /** The ids of the transactions executed, in order. */
  readonly executed: string[];
  /** The next broadcast is refused with this code and message, as a node refuses. */
  refuseNext(code: string, message: string): void;
  /** The next broadcast is included but runs out of energy: it fails and changes nothing. */
  runOutOfEnergyNext(): void;
  close(): Promise<void>;
}

interface Included {
  readonly blockNumber: number;
  readonly blockTimeStamp: number;
  readonly result: 'SUCCESS' | 'REVERT' | 'OUT_OF_ENERGY';
}

export async function startFakeTronNode(options: {
  /** Where the contracts run: the token and the fee proxy at their Tron addresses' 20 bytes. */
  readonly chain: LocalChain;
  /** The fee proxy whose events TronGrid indexes (base58). */
  readonly proxy: string;
  /** Blocks made before the test starts, ending now (detection looks back 1,000). */
  readonly history?: number;
  /** An empty block this often; a broadcast makes its own block at once. */
  readonly blockEveryMs?: number;
}): Promise<FakeTronNode> {
  const { chain } = options;
  const proxy20 = tronToEvm(options.proxy).toLowerCase();
  const included = new Map<string, Included>();
  const executed: string[] = [];
  const refusals: { code: string; message: string }[] = [];
  let outOfEnergy = 0;
  let head = 60_000_000;
  let headHash = '0'.repeat(64);
  let timestamp = Date.now() - (options.history ?? 1_100) * BLOCK_INTERVAL_MS;

  const grid = await startFakeTronGrid({
    extraRoutes: async (method, path, body) => {
      if (method !== 'POST') return undefined;
      if (path === '/wallet/triggersmartcontract') return { status: 200, body: trigger(body) };
      if (path === '/wallet/broadcasttransaction')
        return { status: 200, body: await broadcast(body) };
      if (path === '/wallet/gettransactioninfobyid') return { status: 200, body: info(body) };
      return undefined;
    },
  });

  function mine(): { number: number; timestamp: number } {
    head += 1;
    timestamp = Math.max(timestamp + BLOCK_INTERVAL_MS, Date.now());
    headHash = head.toString(16).padStart(16, '0') + randomBytes(24).toString('hex');
    grid.addBlock({ number: head, timestamp, hash: headHash });
    return { number: head, timestamp };
  }
  for (let i = 0; i < (options.history ?? 1_100); i++) mine();
  const miner = setInterval(mine, options.blockEveryMs ?? 500);

  function trigger(body: unknown): object {
    const b = (body ?? {}) as Record<string, unknown>;
    const owner = hex41(b.owner_address);
    const contract = hex41(b.contract_address);
    const selector = typeof b.function_selector === 'string' ? b.function_selector : '';
    const parameter = typeof b.parameter === 'string' ? b.parameter : '';
    if (
      !owner ||
      !contract ||
      !/^\w+\(.*\)$/.test(selector) ||
      !/^([0-9a-f]{2})*$/i.test(parameter)
    )
      return refused('CONTRACT_VALIDATE_ERROR', 'invalid trigger parameters');
    const now = Date.now();
    const raw: TronRaw = {
      // As TronWeb and full nodes do: bytes 6-7 of the head's number, bytes 8-15 of its hash.
      refBlockBytes: Buffer.from(head.toString(16).padStart(16, '0').slice(12), 'hex'),
      refBlockNum: 0n,
      refBlockHash: Buffer.from(headHash.slice(16, 32), 'hex'),
      expiration: BigInt(now + EXPIRATION_MS),
      auths: [],
      data: new Uint8Array(),
      contract: [
        {
          type: TRIGGER_SMART_CONTRACT,
          parameter: {
            typeUrl: TRIGGER_TYPE_URL,
            value: encodeTronTrigger({
              ownerAddress: Buffer.from(owner, 'hex'),
              contractAddress: Buffer.from(contract, 'hex'),
              callValue: BigInt(Number(b.call_value ?? 0)),
              data: Buffer.from(keccak256(stringToHex(selector)).slice(2, 10) + parameter, 'hex'),
              callTokenValue: 0n,
              tokenId: 0n,
            }),
          },
          provider: new Uint8Array(),
          contractName: new Uint8Array(),
          permissionId: 0,
        },
      ],
      scripts: new Uint8Array(),
      timestamp: BigInt(now),
      feeLimit: BigInt(Number(b.fee_limit ?? 0)),
    };
    const rawHex = Buffer.from(encodeTronRaw(raw)).toString('hex');
    return {
      result: { result: true },
      transaction: {
        visible: false,
        txID: sha256(rawHex),
        raw_data: tronRawToJson(raw),
        raw_data_hex: rawHex,
      },
    };
  }

  async function broadcast(body: unknown): Promise<object> {
    const tx = (body ?? {}) as {
      txID?: unknown;
      raw_data?: unknown;
      raw_data_hex?: unknown;
      signature?: unknown;
    };
    const refusal = refusals.shift();
    if (refusal) return refused(refusal.code, refusal.message);
    const { txID, raw_data: json, raw_data_hex: rawHex, signature } = tx;
    if (typeof txID !== 'string' || typeof rawHex !== 'string' || !json)
      return refused('OTHER_ERROR', 'not a transaction');
    let raw: TronRaw;
    let call: TronTrigger | undefined;
    try {
      raw = decodeTronRaw(Buffer.from(rawHex, 'hex'));
      const parameter = raw.contract[0]?.parameter;
      if (
        raw.contract.length === 1 &&
        raw.contract[0]?.type === TRIGGER_SMART_CONTRACT &&
        parameter
      )
        call = decodeTronTrigger(parameter.value);
    } catch {
      return refused('OTHER_ERROR', 'raw_data_hex is not a Transaction.raw');
    }
    // A node reads raw_data and hashes its encoding: it must be the bytes signed.
    const described = Buffer.from(encodeTronRaw(tronRawFromJson(json).raw)).toString('hex');
    if (described !== rawHex.toLowerCase() || sha256(rawHex) !== txID)
      return refused('SIGERROR', 'the transaction id is not the hash of its raw data');
    if (!call)
      return refused('CONTRACT_VALIDATE_ERROR', 'only TriggerSmartContract is served here');
    const [sig] = Array.isArray(signature) ? signature : [];
    if (typeof sig !== 'string' || !isHex(`0x${sig}`) || sig.length !== 130)
      return refused('SIGERROR', 'validate signature error: missing signature');
    const owner = `0x${Buffer.from(call.ownerAddress.subarray(1)).toString('hex')}` as Address;
    const signer = await recoverAddress({ hash: `0x${txID}`, signature: `0x${sig}` }).catch(
      () => null,
    );
    if (signer?.toLowerCase() !== owner.toLowerCase())
      return refused('SIGERROR', 'validate signature error: signed by another account');
    if (included.has(txID)) return refused('DUP_TRANSACTION_ERROR', 'dup transaction');
    if (raw.expiration < BigInt(Date.now()))
      return refused('TRANSACTION_EXPIRATION_ERROR', 'expired');

    const starved = outOfEnergy > 0;
    if (starved) outOfEnergy--;
    const result = starved
      ? { ok: false, logs: [] }
      : await execute(
          owner,
          `0x${Buffer.from(call.contractAddress.subarray(1)).toString('hex')}`,
          call,
        );
    // Everything below runs at once, so detection never sees the block without its events.
    const block = mine();
    included.set(txID, {
      blockNumber: block.number,
      blockTimeStamp: block.timestamp,
      result: starved ? 'OUT_OF_ENERGY' : result.ok ? 'SUCCESS' : 'REVERT',
    });
    grid.setSender(txID, Buffer.from(call.ownerAddress).toString('hex'));
    result.logs.forEach((log, index) => {
      grid.addEvent({
        transaction_id: txID,
        block_number: block.number,
        block_timestamp: block.timestamp,
        event_index: index,
        event_name: 'TransferWithReferenceAndFee',
        contract_address: options.proxy,
        result: {
          tokenAddress: log.tokenAddress.toLowerCase(),
          to: log.to.toLowerCase(),
          amount: String(log.amount),
          paymentReference: log.paymentReference.slice(2),
          feeAmount: String(log.feeAmount),
          feeAddress: log.feeAddress.toLowerCase(),
        },
        result_type: {
          tokenAddress: 'address',
          to: 'address',
          amount: 'uint256',
          paymentReference: 'bytes',
          feeAmount: 'uint256',
          feeAddress: 'address',
        },
      });
    });
    executed.push(txID);
    return { result: true, txid: txID };
  }

  /** Runs the call on the EVM underneath as its owner; a revert is a failed Tron transaction. */
  async function execute(owner: Address, to: Address, call: TronTrigger) {
    await chain.provider.request({
      method: 'hardhat_impersonateAccount',
      params: [owner],
    });
    try {
      const hash = (await chain.provider.request({
        method: 'eth_sendTransaction',
        params: [
          {
            from: owner,
            to,
            data: toHex(call.data),
            value: toHex(call.callValue),
            gas: toHex(GAS),
          },
        ],
      })) as Hex;
      const receipt = await chain.client.getTransactionReceipt({ hash });
      const events = parseEventLogs({
        abi: erc20FeeProxyAbi,
        logs: receipt.logs.filter((log) => log.address.toLowerCase() === proxy20),
        eventName: 'TransferWithReferenceAndFee',
      });
      return { ok: receipt.status === 'success', logs: events.map((event) => event.args) };
    } catch {
      // The EVM refuses a reverting call outright; Tron would include it as a failure.
      return { ok: false, logs: [] };
    } finally {
      await chain.provider.request({
        method: 'hardhat_stopImpersonatingAccount',
        params: [owner],
      });
    }
  }

  function info(body: unknown): object {
    const id = (body as { value?: unknown } | null)?.value;
    const found = typeof id === 'string' ? included.get(id) : undefined;
    if (!found) return {};
    return {
      id,
      blockNumber: found.blockNumber,
      blockTimeStamp: found.blockTimeStamp,
      receipt: { result: found.result },
      ...(found.result !== 'SUCCESS' && { result: 'FAILED' }),
    };
  }

  return {
    url: grid.url,
    grid,
    executed,
    refuseNext: (code, message) => refusals.push({ code, message }),
    runOutOfEnergyNext: () => {
      outOfEnergy++;
    },
    async close() {
      clearInterval(miner);
      await grid.close();
    },
  };
}

/** A node's refusal: the message is hex-encoded text, as full nodes send it. */
function refused(code: string, message: string): object {
  return { result: false, code, message: stringToHex(message).slice(2), txid: '' };
}

function hex41(value: unknown): string | null {
  return typeof value === 'string' && /^41[0-9a-f]{40}$/i.test(value) ? value.toLowerCase() : null;
}

function sha256(hex: string): string {
  return createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
}
