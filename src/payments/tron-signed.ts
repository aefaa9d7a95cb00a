import { createHash } from 'node:crypto';
import { type Abi, decodeFunctionData, type Hex, isAddressEqual, recoverAddress } from 'viem';
import { AppError, ValidationError } from '../base/errors.ts';
import { evmToTron, tronToEvm } from '../chains/tron-address.ts';
import { abiOfTronSelector } from './calldata/tron.ts';
import type { TronTransaction } from './transactions.ts';
import {
  CONTRACT_TYPES,
  decodeTronRaw,
  decodeTronTrigger,
  encodeTronRaw,
  ProtobufError,
  TRIGGER_SMART_CONTRACT,
  TRIGGER_TYPE_URL,
  type TronContract,
  type TronRaw,
} from './tron-protobuf.ts';
import { addressOfBytes, tronRawFromJson } from './tron-raw-json.ts';

/**
 * Signed Tron transactions a payer's wallet made from a link's calldata: what they say, checked
 * to be what they claim (id, encoding, signer), then compared with the calls the link expects,
 * before anything is relayed to the network.
 */

/** A signed transaction as the caller sent it (the id may be left out: it is computed). */
export interface SignedInput {
  readonly txID?: string | undefined;
  readonly raw_data: { readonly contract: readonly unknown[]; readonly fee_limit?: number };
  readonly raw_data_hex: string;
  readonly signature: readonly string[];
}

/** The one smart-contract call a signed transaction makes, as its signed bytes say. */
export interface SignedTrigger {
  readonly txID: string;
  /** base58. */
  readonly owner: string;
  /** base58. */
  readonly contract: string;
  /** Lower-case, `0x`-prefixed: selector then ABI-encoded arguments. */
  readonly data: Hex;
  /** Sun. */
  readonly callValue: bigint;
  /** Sun; 0 when the transaction sets none. */
  readonly feeLimit: bigint;
  /** Milliseconds since the epoch; 0 when the transaction sets none. */
  readonly expiration: bigint;
}

const mismatch = (message: string) => new AppError('tron_transaction_mismatch', message);

/**
 * The first field where `raw_data` (the JSON a wallet sends beside the bytes, which full nodes
 * read) says something else than `raw_data_hex` (the protobuf bytes that were signed), as
 * `<field> is <in raw_data>; raw_data_hex holds <in the bytes>`; null when they agree.
 */
function rawDataDifference(signed: TronRaw, described: TronRaw): string | null {
  const a = fieldsOf(signed);
  const b = fieldsOf(described);
  for (const [field, value] of a) {
    const other = b.get(field) ?? 'absent';
    if (other !== value) return `${field} is ${other}; raw_data_hex holds ${value}`;
  }
  for (const [field, value] of b)
    if (!a.has(field)) return `${field} is ${value}; raw_data_hex holds nothing there`;
  return null;
}

/** Each field of raw data by its name in `raw_data`, as text; empty and zero ones left out. */
function fieldsOf(raw: TronRaw): Map<string, string> {
  const fields = new Map<string, string>();
  const put = (field: string, value: Uint8Array | bigint | number | string) => {
    const text = value instanceof Uint8Array ? Buffer.from(value).toString('hex') : String(value);
    if (text !== '' && text !== '0') fields.set(field, text);
  };
  put('ref_block_bytes', raw.refBlockBytes);
  put('ref_block_num', raw.refBlockNum);
  put('ref_block_hash', raw.refBlockHash);
  put('expiration', raw.expiration);
  put('data', raw.data);
  put('contract.length', raw.contract.length);
  raw.contract.forEach((contract, index) => {
    const at = `contract[${index}]`;
    put(`${at}.type`, CONTRACT_TYPES[contract.type] ?? `type ${contract.type}`);
    put(`${at}.parameter.type_url`, contract.parameter?.typeUrl ?? '');
    put(`${at}.Permission_id`, contract.permissionId);
    put(`${at}.provider`, contract.provider);
    put(`${at}.ContractName`, contract.contractName);
    if (contract.type !== TRIGGER_SMART_CONTRACT || !contract.parameter) return;
    let trigger: ReturnType<typeof decodeTronTrigger>;
    try {
      trigger = decodeTronTrigger(contract.parameter.value);
    } catch {
      put(`${at}.parameter.value`, contract.parameter.value);
      return;
    }
    const v = `${at}.parameter.value`;
    put(`${v}.owner_address`, addressOfBytes(trigger.ownerAddress) ?? trigger.ownerAddress);
    put(
      `${v}.contract_address`,
      addressOfBytes(trigger.contractAddress) ?? trigger.contractAddress,
    );
    put(`${v}.call_value`, trigger.callValue);
    put(`${v}.data`, trigger.data);
    put(`${v}.call_token_value`, trigger.callTokenValue);
    put(`${v}.token_id`, trigger.tokenId);
  });
  put('timestamp', raw.timestamp);
  put('fee_limit', raw.feeLimit);
  return fields;
}

/** A transaction's id: the SHA-256 of its raw data's bytes, lower-case hex. */
function transactionId(rawDataHex: string): string {
  return createHash('sha256').update(Buffer.from(rawDataHex, 'hex')).digest('hex');
}

/**
 * The call a signed transaction makes, read from the bytes that were signed (`raw_data_hex`,
 * protobuf `Transaction.raw`), once its id hashes them, `raw_data` says the same as they do,
 * they hold exactly one TriggerSmartContract, and one of its signatures is its owner's.
 */
export async function readSignedTrigger(signed: SignedInput): Promise<SignedTrigger> {
  const txID = transactionId(signed.raw_data_hex);
  if (signed.txID !== undefined && signed.txID.toLowerCase() !== txID)
    throw mismatch('txID is not the SHA-256 of raw_data_hex');
  const hex = signed.raw_data_hex.toLowerCase();
  if (hex.length % 2 !== 0) throw mismatch('raw_data_hex is not whole bytes');
  let raw: TronRaw;
  try {
    raw = decodeTronRaw(Buffer.from(hex, 'hex'));
  } catch (error) {
    if (!(error instanceof ProtobufError)) throw error;
    throw mismatch(`raw_data_hex is not a protobuf Transaction.raw: ${error.message}`);
  }
  // One encoding for one meaning: a node hashes the raw data it reads, so other bytes for the
  // same fields would carry a signature over another id.
  if (Buffer.from(encodeTronRaw(raw)).toString('hex') !== hex)
    throw mismatch('raw_data_hex is not the canonical protobuf encoding of its fields');

  const described = tronRawFromJson(signed.raw_data);
  if (described.issues.length > 0)
    throw new ValidationError(
      described.issues.map((issue) => ({
        field: `signedTransaction.raw_data.${issue.field}`,
        message: issue.message,
      })),
    );

  if (raw.contract.length !== 1)
    throw mismatch(
      `The transaction must hold exactly one contract; it holds ${raw.contract.length}`,
    );
  const [contract] = raw.contract as [TronContract];
  if (contract.type !== TRIGGER_SMART_CONTRACT || contract.parameter?.typeUrl !== TRIGGER_TYPE_URL)
    throw mismatch(
      `The transaction must be a ${CONTRACT_TYPES[TRIGGER_SMART_CONTRACT]}; it is a ${CONTRACT_TYPES[contract.type] ?? `contract of type ${contract.type}`}`,
    );
  if (raw.auths.length > 0 || raw.scripts.length > 0)
    throw mismatch('The transaction holds auths or scripts, which a wallet’s call never does');
  let trigger: ReturnType<typeof decodeTronTrigger>;
  try {
    trigger = decodeTronTrigger(contract.parameter.value);
  } catch (error) {
    if (!(error instanceof ProtobufError)) throw error;
    throw mismatch(`raw_data_hex is not a protobuf Transaction.raw: ${error.message}`);
  }
  const difference = rawDataDifference(raw, described.raw);
  if (difference !== null) throw mismatch(`raw_data_hex does not encode raw_data: ${difference}`);

  const owner = addressOfBytes(trigger.ownerAddress);
  const target = addressOfBytes(trigger.contractAddress);
  const data = Buffer.from(trigger.data).toString('hex');
  // raw_data says the same and was found well formed, so these hold; kept for the types.
  if (owner === null || target === null || data.length < 8 || trigger.callValue < 0n)
    throw mismatch('The transaction’s call has no owner, contract or calldata');
  if (trigger.callTokenValue !== 0n || trigger.tokenId !== 0n)
    throw mismatch('The transaction sends a TRC-10 token, which no link expects');

  const ownerEvm = tronToEvm(owner);
  let signedByOwner = false;
  for (const signature of signed.signature) {
    const signer = await recoverAddress({
      hash: `0x${txID}`,
      signature: `0x${signature}`,
    }).catch(() => null);
    if (signer !== null && isAddressEqual(signer, ownerEvm)) signedByOwner = true;
  }
  if (!signedByOwner) throw mismatch(`The transaction is not signed by its owner ${owner}`);

  return {
    txID,
    owner,
    contract: target,
    data: `0x${data}` as Hex,
    callValue: trigger.callValue,
    feeLimit: raw.feeLimit,
    expiration: raw.expiration,
  };
}

/**
 * The expected call the signed one is, exactly (contract, selector and arguments, call value)
 * within its fee limit; otherwise a 400 naming the first thing that differs.
 */
export function matchExpected(
  call: SignedTrigger,
  expected: readonly TronTransaction[],
): TronTransaction {
  const candidate = expected.find((tx) => tx.contractAddress === call.contract);
  if (!candidate)
    throw mismatch(
      `The transaction calls ${call.contract}; the link expects ${expected
        .map((tx) => `${tx.functionSelector} on ${tx.contractAddress}`)
        .join(' or ')}`,
    );
  const name = candidate.functionSelector;
  if (call.data.slice(0, 10) !== candidate.data.slice(0, 10).toLowerCase())
    throw mismatch(
      `The transaction calls selector ${call.data.slice(0, 10)} on ${call.contract}; the link expects ${name}`,
    );
  if (call.data !== candidate.data.toLowerCase()) {
    const abi = abiOfTronSelector(name) as Abi | undefined;
    const differences = abi ? argumentDifferences(abi, call.data, candidate.data) : [];
    throw mismatch(
      differences.length > 0
        ? differences.join('; ')
        : `The transaction's data is not the ${name} call the link expects`,
    );
  }
  if (call.callValue !== BigInt(candidate.callValue))
    throw mismatch(
      `call_value is ${call.callValue} sun; the link expects ${candidate.callValue} for ${name}`,
    );
  if (call.feeLimit > BigInt(candidate.feeLimit))
    throw mismatch(
      `fee_limit is ${call.feeLimit} sun, above the ${candidate.feeLimit} the link allows for ${name}`,
    );
  return candidate;
}

/** `<function>'s <argument> is <sent>, the link expects <expected>`, for each argument. */
function argumentDifferences(abi: Abi, sent: Hex, wanted: Hex): string[] {
  const expected = decodeFunctionData({ abi, data: wanted });
  let actual: { args?: readonly unknown[] | undefined };
  try {
    actual = decodeFunctionData({ abi, data: sent });
  } catch {
    return [];
  }
  const item = abi.find(
    (entry) => entry.type === 'function' && entry.name === expected.functionName,
  );
  const inputs = item?.type === 'function' ? item.inputs : [];
  return inputs.flatMap((input, index) => {
    const got = show(input.type, actual.args?.[index]);
    const want = show(input.type, expected.args?.[index]);
    return got === want
      ? []
      : [
          `${expected.functionName}'s ${input.name ?? `argument ${index}`} is ${got}, the link expects ${want}`,
        ];
  });
}

/** Addresses in base58 (as Tron shows them), numbers in decimal, bytes in hex. */
function show(type: string, value: unknown): string {
  if (type.endsWith('[]') && Array.isArray(value)) {
    return `[${value.map((item) => show(type.slice(0, -2), item)).join(', ')}]`;
  }
  if (type === 'address' && typeof value === 'string') return evmToTron(value);
  if (typeof value === 'bigint') return value.toString();
  return String(value).toLowerCase();
}
