/**
 * The protobuf encoding of a Tron transaction's raw data, which is what `raw_data_hex` holds
 * and what its id hashes (txID = SHA-256 of these bytes), read and written by hand for exactly
 * the messages a smart-contract call needs (tronprotocol/protocol, core/Tron.proto and
 * core/contract/smart_contract.proto):
 *
 *   Transaction.raw { bytes ref_block_bytes = 1; int64 ref_block_num = 3; bytes ref_block_hash = 4;
 *     int64 expiration = 8; repeated authority auths = 9; bytes data = 10;
 *     repeated Contract contract = 11; bytes scripts = 12; int64 timestamp = 14; int64 fee_limit = 18; }
 *   Transaction.Contract { ContractType type = 1; google.protobuf.Any parameter = 2;
 *     bytes provider = 3; bytes ContractName = 4; int32 Permission_id = 5; }
 *   google.protobuf.Any { string type_url = 1; bytes value = 2; }
 *   TriggerSmartContract { bytes owner_address = 1; bytes contract_address = 2; int64 call_value = 3;
 *     bytes data = 4; int64 call_token_value = 5; int64 token_id = 6; }
 *
 * Reading is strict: an unknown field, a field of the wrong wire type or a singular field given
 * twice is an error, so the bytes mean one thing only. Writing is proto3's canonical form (fields
 * in number order, defaults left out, shortest varints), as full nodes and TronWeb write it.
 * `authority` messages are kept as their bytes: a wallet's call never holds one. The reader
 * and the writer of these five messages stay in one file (a little over 300 lines), so that each
 * field's number and kind is read and written side by side.
 */

export const TRIGGER_SMART_CONTRACT = 31;
export const TRIGGER_TYPE_URL = 'type.googleapis.com/protocol.TriggerSmartContract';

/** Contract types by number, for messages (Tron.proto's ContractType, the common ones). */
export const CONTRACT_TYPES: Readonly<Record<number, string>> = {
  0: 'AccountCreateContract',
  1: 'TransferContract',
  2: 'TransferAssetContract',
  30: 'CreateSmartContract',
  31: 'TriggerSmartContract',
  46: 'AccountPermissionUpdateContract',
};

interface TronAny {
  readonly typeUrl: string;
  readonly value: Uint8Array;
}

export interface TronContract {
  readonly type: number;
  readonly parameter: TronAny | null;
  readonly provider: Uint8Array;
  readonly contractName: Uint8Array;
  readonly permissionId: number;
}

export interface TronRaw {
  readonly refBlockBytes: Uint8Array;
  readonly refBlockNum: bigint;
  readonly refBlockHash: Uint8Array;
  readonly expiration: bigint;
  /** Each `authority` message's bytes. */
  readonly auths: readonly Uint8Array[];
  readonly data: Uint8Array;
  readonly contract: readonly TronContract[];
  readonly scripts: Uint8Array;
  readonly timestamp: bigint;
  readonly feeLimit: bigint;
}

export interface TronTrigger {
  /** 21 bytes: `41` and the 20-byte address. */
  readonly ownerAddress: Uint8Array;
  readonly contractAddress: Uint8Array;
  readonly callValue: bigint;
  readonly data: Uint8Array;
  readonly callTokenValue: bigint;
  readonly tokenId: bigint;
}

export class ProtobufError extends Error {}

// ---------------------------------------------------------------------------------------------
// Reading

const VARINT = 0;
const LENGTH = 2;

type FieldValue =
  | { readonly wire: 0; readonly value: bigint }
  | { readonly wire: 2; readonly value: Uint8Array };

/** Each field of one message, in the order given. Fixed-width and group fields are refused. */
function readFields(bytes: Uint8Array, message: string): [number, FieldValue][] {
  const fields: [number, FieldValue][] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let i = 0; i < 10; i++) {
      if (at >= bytes.length) throw new ProtobufError(`${message} ends inside a varint`);
      const byte = bytes[at++] as number;
      result |= BigInt(byte & 0x7f) << BigInt(7 * i);
      if ((byte & 0x80) === 0) {
        if (result >= 1n << 64n) throw new ProtobufError(`${message} has a varint over 64 bits`);
        return result;
      }
    }
    throw new ProtobufError(`${message} has a varint over 10 bytes`);
  };
  while (at < bytes.length) {
    const key = varint();
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (number === 0 || key >> 3n > 0x1fffffffn)
      throw new ProtobufError(`${message} has an invalid field number`);
    if (wire === VARINT) fields.push([number, { wire: 0, value: varint() }]);
    else if (wire === LENGTH) {
      const length = varint();
      if (length > BigInt(bytes.length - at))
        throw new ProtobufError(`${message} field ${number} runs past the end`);
      fields.push([number, { wire: 2, value: bytes.subarray(at, at + Number(length)) }]);
      at += Number(length);
    } else throw new ProtobufError(`${message} field ${number} has wire type ${wire}`);
  }
  return fields;
}

type Kind = 'bytes' | 'int64' | 'int32' | 'enum' | 'message';

/** Reads a message whose fields are all known, each at most once unless repeated. */
function readMessage(
  bytes: Uint8Array,
  message: string,
  schema: Readonly<Record<number, readonly [name: string, kind: Kind, repeated?: boolean]>>,
): Map<number, (bigint | Uint8Array)[]> {
  const seen = new Map<number, (bigint | Uint8Array)[]>();
  for (const [number, field] of readFields(bytes, message)) {
    const spec = schema[number];
    if (!spec) throw new ProtobufError(`${message} has unknown field ${number}`);
    const [name, kind, repeated] = spec;
    const wantWire = kind === 'bytes' || kind === 'message' ? LENGTH : VARINT;
    if (field.wire !== wantWire)
      throw new ProtobufError(`${message}.${name} has wire type ${field.wire}`);
    const values = seen.get(number) ?? [];
    if (values.length > 0 && !repeated)
      throw new ProtobufError(`${message}.${name} is given more than once`);
    values.push(field.value);
    seen.set(number, values);
  }
  return seen;
}

const bytesOf = (fields: Map<number, (bigint | Uint8Array)[]>, n: number) =>
  (fields.get(n)?.[0] as Uint8Array | undefined) ?? new Uint8Array();
const int64Of = (fields: Map<number, (bigint | Uint8Array)[]>, n: number) =>
  BigInt.asIntN(64, (fields.get(n)?.[0] as bigint | undefined) ?? 0n);
const int32Of = (fields: Map<number, (bigint | Uint8Array)[]>, n: number) =>
  Number(BigInt.asIntN(32, (fields.get(n)?.[0] as bigint | undefined) ?? 0n));

/** `Transaction.raw` from its bytes (`raw_data_hex`). */
export function decodeTronRaw(bytes: Uint8Array): TronRaw {
  const f = readMessage(bytes, 'Transaction.raw', {
    1: ['ref_block_bytes', 'bytes'],
    3: ['ref_block_num', 'int64'],
    4: ['ref_block_hash', 'bytes'],
    8: ['expiration', 'int64'],
    9: ['auths', 'message', true],
    10: ['data', 'bytes'],
    11: ['contract', 'message', true],
    12: ['scripts', 'bytes'],
    14: ['timestamp', 'int64'],
    18: ['fee_limit', 'int64'],
  });
  return {
    refBlockBytes: bytesOf(f, 1),
    refBlockNum: int64Of(f, 3),
    refBlockHash: bytesOf(f, 4),
    expiration: int64Of(f, 8),
    auths: (f.get(9) ?? []) as Uint8Array[],
    data: bytesOf(f, 10),
    contract: ((f.get(11) ?? []) as Uint8Array[]).map(decodeContract),
    scripts: bytesOf(f, 12),
    timestamp: int64Of(f, 14),
    feeLimit: int64Of(f, 18),
  };
}

function decodeContract(bytes: Uint8Array): TronContract {
  const f = readMessage(bytes, 'Transaction.Contract', {
    1: ['type', 'enum'],
    2: ['parameter', 'message'],
    3: ['provider', 'bytes'],
    4: ['ContractName', 'bytes'],
    5: ['Permission_id', 'int32'],
  });
  const parameter = f.get(2)?.[0] as Uint8Array | undefined;
  return {
    type: int32Of(f, 1),
    parameter: parameter === undefined ? null : decodeAny(parameter),
    provider: bytesOf(f, 3),
    contractName: bytesOf(f, 4),
    permissionId: int32Of(f, 5),
  };
}

function decodeAny(bytes: Uint8Array): TronAny {
  const f = readMessage(bytes, 'google.protobuf.Any', {
    1: ['type_url', 'bytes'],
    2: ['value', 'bytes'],
  });
  const typeUrl = bytesOf(f, 1);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(typeUrl);
  } catch {
    throw new ProtobufError('google.protobuf.Any.type_url is not UTF-8');
  }
  return { typeUrl: text, value: bytesOf(f, 2) };
}

/** A `TriggerSmartContract` from its bytes (a contract's `parameter.value`). */
export function decodeTronTrigger(bytes: Uint8Array): TronTrigger {
  const f = readMessage(bytes, 'TriggerSmartContract', {
    1: ['owner_address', 'bytes'],
    2: ['contract_address', 'bytes'],
    3: ['call_value', 'int64'],
    4: ['data', 'bytes'],
    5: ['call_token_value', 'int64'],
    6: ['token_id', 'int64'],
  });
  return {
    ownerAddress: bytesOf(f, 1),
    contractAddress: bytesOf(f, 2),
    callValue: int64Of(f, 3),
    data: bytesOf(f, 4),
    callTokenValue: int64Of(f, 5),
    tokenId: int64Of(f, 6),
  };
}

// ---------------------------------------------------------------------------------------------
// Writing

class Writer {
  private readonly parts: number[] = [];

  private varint(value: bigint): void {
    let v = BigInt.asUintN(64, value);
    while (v >= 0x80n) {
      this.parts.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.parts.push(Number(v));
  }

  /** An int64, int32 or enum field; left out when 0, as proto3 does. */
  int(number: number, value: bigint | number): this {
    if (BigInt(value) === 0n) return this;
    this.varint(BigInt(number << 3) | 0n);
    this.varint(BigInt(value));
    return this;
  }

  /** A bytes, string or message field; left out when empty unless `always` (repeated items). */
  bytes(number: number, value: Uint8Array, always = false): this {
    if (value.length === 0 && !always) return this;
    this.varint(BigInt((number << 3) | LENGTH));
    this.varint(BigInt(value.length));
    for (const byte of value) this.parts.push(byte);
    return this;
  }

  done(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

export function encodeTronRaw(raw: TronRaw): Uint8Array {
  const w = new Writer()
    .bytes(1, raw.refBlockBytes)
    .int(3, raw.refBlockNum)
    .bytes(4, raw.refBlockHash)
    .int(8, raw.expiration);
  for (const auth of raw.auths) w.bytes(9, auth, true);
  w.bytes(10, raw.data);
  for (const contract of raw.contract) w.bytes(11, encodeContract(contract), true);
  return w.bytes(12, raw.scripts).int(14, raw.timestamp).int(18, raw.feeLimit).done();
}

function encodeContract(contract: TronContract): Uint8Array {
  const w = new Writer().int(1, contract.type);
  if (contract.parameter)
    w.bytes(
      2,
      new Writer()
        .bytes(1, new TextEncoder().encode(contract.parameter.typeUrl))
        .bytes(2, contract.parameter.value)
        .done(),
      true,
    );
  return w
    .bytes(3, contract.provider)
    .bytes(4, contract.contractName)
    .int(5, contract.permissionId)
    .done();
}

export function encodeTronTrigger(trigger: TronTrigger): Uint8Array {
  return new Writer()
    .bytes(1, trigger.ownerAddress)
    .bytes(2, trigger.contractAddress)
    .int(3, trigger.callValue)
    .bytes(4, trigger.data)
    .int(5, trigger.callTokenValue)
    .int(6, trigger.tokenId)
    .done();
}

// ---------------------------------------------------------------------------------------------
// TronWeb's JSON form of the same messages (`raw_data`): hex bytes, `41…` hex or base58
// addresses, numbers; fields at their default left out.
