import { evmToTron, isTronAddress, tronToEvm } from '../chains/tron-address.ts';
import {
  CONTRACT_TYPES,
  decodeTronTrigger,
  encodeTronTrigger,
  TRIGGER_SMART_CONTRACT,
  type TronContract,
  type TronRaw,
  type TronTrigger,
} from './tron-protobuf.ts';

/**
 * `raw_data` as full nodes and wallets show a Tron transaction in JSON (`visible: false`), read
 * into the raw data whose protobuf bytes are signed (tron-protobuf.ts), and written back.
 */

/** One malformed field of `raw_data`, by its path under it. */
export interface JsonIssue {
  readonly field: string;
  readonly message: string;
}

const ADDRESS_MESSAGE = 'must be a Tron address (41 and 40 hex digits, or base58)';

/**
 * The raw data `raw_data` describes, to compare with the signed bytes or to encode them;
 * malformed fields are listed (`issues`) and read as their default. Contracts other than
 * TriggerSmartContract keep their type but no parameter value.
 */
export function tronRawFromJson(json: unknown): { raw: TronRaw; issues: JsonIssue[] } {
  const issues: JsonIssue[] = [];
  const o = objectOf(json) ?? {};
  const hex = (value: unknown, field: string): Uint8Array => {
    if (value === undefined) return new Uint8Array();
    if (typeof value === 'string' && /^([0-9a-fA-F]{2})*$/.test(value))
      return Uint8Array.from(Buffer.from(value, 'hex'));
    issues.push({ field, message: 'must be hex' });
    return new Uint8Array();
  };
  const int = (value: unknown, field: string, message = 'must be a whole number'): bigint => {
    if (value === undefined) return 0n;
    if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
    issues.push({ field, message });
    return 0n;
  };
  const contracts = Array.isArray(o.contract) ? o.contract : [];
  if (!Array.isArray(o.contract)) issues.push({ field: 'contract', message: 'must be a list' });
  const raw: TronRaw = {
    refBlockBytes: hex(o.ref_block_bytes, 'ref_block_bytes'),
    refBlockNum: int(o.ref_block_num, 'ref_block_num'),
    refBlockHash: hex(o.ref_block_hash, 'ref_block_hash'),
    expiration: int(o.expiration, 'expiration'),
    auths: [],
    data: hex(o.data, 'data'),
    contract: contracts.map((entry, index): TronContract => {
      const at = `contract[${index}]`;
      const c = objectOf(entry) ?? {};
      const parameter = objectOf(c.parameter);
      const typeName = typeof c.type === 'string' ? c.type : '';
      const typeNumber = Object.entries(CONTRACT_TYPES).find(([, name]) => name === typeName)?.[0];
      const typeUrl = typeof parameter?.type_url === 'string' ? parameter.type_url : '';
      const isTrigger = typeNumber === String(TRIGGER_SMART_CONTRACT);
      return {
        type: typeNumber === undefined ? -1 : Number(typeNumber),
        parameter:
          parameter === undefined
            ? null
            : {
                typeUrl,
                value: isTrigger
                  ? encodeTronTrigger(triggerFromJson(parameter.value, `${at}.parameter.value`))
                  : new Uint8Array(),
              },
        provider: hex(c.provider, `${at}.provider`),
        contractName: hex(c.ContractName, `${at}.ContractName`),
        permissionId: Number(int(c.Permission_id, `${at}.Permission_id`)),
      };
    }),
    scripts: hex(o.scripts, 'scripts'),
    timestamp: int(o.timestamp, 'timestamp'),
    feeLimit: int(o.fee_limit, 'fee_limit'),
  };
  return { raw, issues };

  function triggerFromJson(value: unknown, at: string): TronTrigger {
    const v = objectOf(value) ?? {};
    const address = (field: string): Uint8Array => {
      const bytes = addressBytes(v[field]);
      if (bytes) return bytes;
      issues.push({ field: `${at}.${field}`, message: ADDRESS_MESSAGE });
      return new Uint8Array();
    };
    const ownerAddress = address('owner_address');
    const contractAddress = address('contract_address');
    const data = v.data;
    const validData = typeof data === 'string' && /^([0-9a-fA-F]{2}){4,}$/.test(data);
    if (!validData)
      issues.push({ field: `${at}.data`, message: 'must be hex: a selector and its arguments' });
    const callValue = int(v.call_value, `${at}.call_value`, 'must be a whole number of sun');
    if (callValue < 0n)
      issues.push({ field: `${at}.call_value`, message: 'must be a whole number of sun' });
    return {
      ownerAddress,
      contractAddress,
      callValue,
      data: validData ? Uint8Array.from(Buffer.from(data, 'hex')) : new Uint8Array(),
      callTokenValue: int(v.call_token_value, `${at}.call_token_value`),
      tokenId: int(v.token_id, `${at}.token_id`),
    };
  }
}

/** `raw_data` as a full node shows it with `visible: false`: the JSON form of `raw`. */
export function tronRawToJson(raw: TronRaw): Record<string, unknown> {
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  const num = (value: bigint) => Number(value);
  return {
    contract: raw.contract.map((c) => {
      const trigger =
        c.parameter && c.type === TRIGGER_SMART_CONTRACT
          ? decodeTronTrigger(c.parameter.value)
          : null;
      return {
        parameter: c.parameter && {
          value: trigger
            ? {
                data: hex(trigger.data),
                owner_address: hex(trigger.ownerAddress),
                contract_address: hex(trigger.contractAddress),
                ...(trigger.callValue !== 0n && { call_value: num(trigger.callValue) }),
                ...(trigger.callTokenValue !== 0n && {
                  call_token_value: num(trigger.callTokenValue),
                }),
                ...(trigger.tokenId !== 0n && { token_id: num(trigger.tokenId) }),
              }
            : {},
          type_url: c.parameter.typeUrl,
        },
        type: CONTRACT_TYPES[c.type] ?? String(c.type),
        ...(c.permissionId !== 0 && { Permission_id: c.permissionId }),
      };
    }),
    ...(raw.refBlockBytes.length > 0 && { ref_block_bytes: hex(raw.refBlockBytes) }),
    ...(raw.refBlockNum !== 0n && { ref_block_num: num(raw.refBlockNum) }),
    ...(raw.refBlockHash.length > 0 && { ref_block_hash: hex(raw.refBlockHash) }),
    ...(raw.expiration !== 0n && { expiration: num(raw.expiration) }),
    ...(raw.data.length > 0 && { data: hex(raw.data) }),
    ...(raw.feeLimit !== 0n && { fee_limit: num(raw.feeLimit) }),
    ...(raw.timestamp !== 0n && { timestamp: num(raw.timestamp) }),
  };
}

/** 21 bytes (`41` and 20) from `41…` hex or base58; null if neither. */
export function addressBytes(value: unknown): Uint8Array | null {
  if (typeof value !== 'string') return null;
  const hex = isTronAddress(value)
    ? `41${tronToEvm(value).slice(2)}`
    : /^41[0-9a-fA-F]{40}$/.test(value)
      ? value
      : null;
  return hex === null ? null : Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** base58 for 21 address bytes; null unless they are `41` and 20 bytes. */
export function addressOfBytes(bytes: Uint8Array): string | null {
  if (bytes.length !== 21 || bytes[0] !== 0x41) return null;
  return evmToTron(`0x${Buffer.from(bytes.subarray(1)).toString('hex')}`);
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
