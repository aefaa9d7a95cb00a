import { createHash } from 'node:crypto';
import { type Abi, decodeFunctionData, type Hex, isAddressEqual, recoverAddress } from 'viem';
import { evmToTron, isTronAddress, tronToEvm } from '../chains/tron-address.ts';
import { AppError, ValidationError } from '../errors.ts';
import { erc20Abi, erc20FeeProxyAbi, TRON_SELECTORS } from './abis.ts';
import type { TronTransaction } from './transactions.ts';

/**
 * Signed Tron transactions a payer's wallet made from a link's calldata: what they say, checked
 * to be what they claim (id, encoding, signer), then compared with the calls the link expects,
 * before anything is relayed to the network.
 */

const TRIGGER = 'TriggerSmartContract';
const TRIGGER_TYPE_URL = 'type.googleapis.com/protocol.TriggerSmartContract';
const VALUE_FIELD = 'signedTransaction.raw_data.contract[0].parameter.value';

/** A signed transaction as the caller sent it (the id may be left out: it is computed). */
export interface SignedInput {
  readonly txID?: string | undefined;
  readonly raw_data: { readonly contract: readonly unknown[]; readonly fee_limit?: number };
  readonly raw_data_hex: string;
  readonly signature: readonly string[];
}

/** The one smart-contract call a signed transaction makes. */
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
}

const mismatch = (message: string) => new AppError('tron_transaction_mismatch', message);

/**
 * Whether `raw_data_hex` is the encoding of `raw_data`. Our Tron node (and its test stand-in)
 * serialises raw data as the hex of its JSON; real Tron full nodes use the protobuf encoding of
 * `Transaction.raw`, so against one this check must encode protobuf instead. It is kept in this
 * one function so that swap touches nothing else.
 */
export function rawDataEncodes(rawData: unknown, rawDataHex: string): boolean {
  return Buffer.from(JSON.stringify(rawData)).toString('hex') === rawDataHex.toLowerCase();
}

/** A transaction's id: the SHA-256 of its raw data's bytes, lower-case hex. */
export function transactionId(rawDataHex: string): string {
  return createHash('sha256').update(Buffer.from(rawDataHex, 'hex')).digest('hex');
}

/**
 * The call a signed transaction makes, once its id hashes its raw data, its raw data is what
 * `raw_data_hex` encodes, it holds exactly one TriggerSmartContract, and one of its signatures
 * is its owner's.
 */
export async function readSignedTrigger(signed: SignedInput): Promise<SignedTrigger> {
  const txID = transactionId(signed.raw_data_hex);
  if (signed.txID !== undefined && signed.txID.toLowerCase() !== txID)
    throw mismatch('txID is not the SHA-256 of raw_data_hex');
  if (signed.raw_data_hex.length % 2 !== 0 || !rawDataEncodes(signed.raw_data, signed.raw_data_hex))
    throw mismatch('raw_data_hex does not encode raw_data');
  const contracts = signed.raw_data.contract;
  if (!Array.isArray(contracts) || contracts.length !== 1)
    throw mismatch(
      `The transaction must hold exactly one contract; it holds ${Array.isArray(contracts) ? contracts.length : 0}`,
    );
  const contract = objectOf(contracts[0]);
  const parameter = objectOf(contract?.parameter);
  if (contract?.type !== TRIGGER || parameter?.type_url !== TRIGGER_TYPE_URL)
    throw mismatch(
      `The transaction must be a ${TRIGGER}; it is a ${typeof contract?.type === 'string' ? contract.type.slice(0, 64) : 'contract of no type'}`,
    );
  const value = objectOf(parameter.value);
  const owner = tronAddressOf(value?.owner_address);
  const target = tronAddressOf(value?.contract_address);
  const data = typeof value?.data === 'string' ? value.data.toLowerCase() : undefined;
  const callValue = value?.call_value ?? 0;
  const validData = data !== undefined && /^([0-9a-f]{2}){4,}$/.test(data);
  const validValue = Number.isSafeInteger(callValue) && (callValue as number) >= 0;
  if (owner === null || target === null || !validData || !validValue)
    throw new ValidationError([
      ...(owner === null ? [{ field: `${VALUE_FIELD}.owner_address`, message: ADDRESS }] : []),
      ...(target === null ? [{ field: `${VALUE_FIELD}.contract_address`, message: ADDRESS }] : []),
      ...(validData
        ? []
        : [{ field: `${VALUE_FIELD}.data`, message: 'must be hex: a selector and its arguments' }]),
      ...(validValue
        ? []
        : [{ field: `${VALUE_FIELD}.call_value`, message: 'must be a whole number of sun' }]),
    ]);

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
    callValue: BigInt(callValue as number),
    feeLimit: BigInt(signed.raw_data.fee_limit ?? 0),
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
    const abi = (name === TRON_SELECTORS.approve ? erc20Abi : erc20FeeProxyAbi) as Abi;
    const differences = argumentDifferences(abi, call.data, candidate.data);
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

const ADDRESS = 'must be a Tron address (41 and 40 hex digits, or base58)';

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
  if (type === 'address' && typeof value === 'string') return evmToTron(value);
  if (typeof value === 'bigint') return value.toString();
  return String(value).toLowerCase();
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `41` + 20 bytes (TronWeb's `visible: false`) or base58 (`visible: true`). */
function tronAddressOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (isTronAddress(value)) return value;
  const hex = /^41([0-9a-fA-F]{40})$/.exec(value)?.[1];
  return hex === undefined ? null : evmToTron(`0x${hex}`);
}
