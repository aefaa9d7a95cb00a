import {
  type Abi,
  type AbiFunction,
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  prepareEncodeFunctionData,
  toHex,
} from 'viem';
import type { Currency } from '../chains/currencies.ts';
import type { Network } from '../chains/networks.ts';
import { tronToEvm } from '../chains/tron-address.ts';
import { type FlatEncoder, flatEncoder } from './calldata/flat-abi.ts';

/** One payment a payer owes: what the calldata builders turn into transactions. */
export interface PaymentLeg {
  readonly requestId: string;
  readonly network: Network;
  readonly currency: Currency;
  /** Checksummed EVM address, base58 on Tron. */
  readonly payee: string;
  /** Base units of `currency` (of `invoiceCurrency` when set), fee excluded. */
  readonly amount: bigint;
  /** 16 hex digits. */
  readonly paymentReference: string;
  /**
   * In the same units as `amount`, except on a conversion leg: there in the conversion proxies'
   * 8 decimals (`FIAT_DECIMALS`), the units the proxy takes it in, so a fee finer than the
   * fiat's cents (0.5 % of 5 USD is 0.025) is not cut to them.
   */
  readonly feeAmount: bigint;
  readonly feeAddress: string | null;
  /**
   * Set on a conversion leg: the fiat the request is written in. `amount` is then in its base
   * units (`feeAmount` in 8 decimals), and the wallet pays `currency` at the on-chain rate.
   */
  readonly invoiceCurrency?: Currency;
}

/** An EVM call a wallet can send as it is. */
export interface EvmTransaction {
  readonly to: Address;
  readonly data: Hex;
  /** Wei, hex. */
  readonly value: Hex;
  readonly chainId: number;
}

export interface TronParameter {
  readonly type: string;
  readonly value: string | readonly string[];
}

/**
 * A Tron `triggersmartcontract` call: base58 addresses and the ABI signature, as TronWeb's
 * `transactionBuilder.triggerSmartContract` takes them; `data` is the same call ABI-encoded,
 * for wallets that sign raw calls and for checking.
 */
export interface TronTransaction {
  readonly type: 'tron';
  readonly contractAddress: string;
  readonly functionSelector: string;
  /** Arrays (`address[]`, `uint256[]`, `bytes[]`) carry one string per element. */
  readonly parameters: readonly TronParameter[];
  /** Sun (1 TRX = 1e6 sun). */
  readonly feeLimit: number;
  readonly callValue: number;
  readonly data: Hex;
  readonly chainId: number;
}

export type PaymentTransaction = EvmTransaction | TronTransaction;

/**
 * Calls to a contract function, ready to encode: its ABI item found and its selector hashed
 * once per ABI and name, not on every call (a keccak and a walk of the ABI each time), and its
 * arguments encoded directly when they are all flat (`flat-abi.ts`).
 */
interface PreparedCall {
  readonly abi: Abi;
  readonly selector: Hex;
  readonly flat: FlatEncoder | null;
}
const prepared = new WeakMap<readonly unknown[], Map<string, PreparedCall>>();

/** `encodeFunctionData` of one of our literal ABIs, with the function looked up once. */
export function encodeCall(
  abi: readonly unknown[],
  functionName: string,
  args: readonly unknown[],
): Hex {
  let functions = prepared.get(abi);
  if (functions === undefined) {
    functions = new Map();
    prepared.set(abi, functions);
  }
  let call = functions.get(functionName);
  if (call === undefined) {
    const found = prepareEncodeFunctionData({ abi: abi as Abi, functionName }) as {
      abi: readonly AbiFunction[];
      functionName: Hex;
    };
    const item = found.abi[0];
    call = {
      abi: found.abi as Abi,
      selector: found.functionName,
      flat: item ? flatEncoder(functionName, item.inputs) : null,
    };
    functions.set(functionName, call);
  }
  const flat = call.flat?.(args);
  if (flat != null) return `${call.selector}${flat}`;
  // The ABIs are parsed from literal signatures; this helper trades their static types for one
  // call site per contract function.
  return encodeFunctionData({
    abi: call.abi,
    functionName: call.selector,
    args,
  } as unknown as Parameters<typeof encodeFunctionData>[0]);
}

export function evmTransaction(
  to: string,
  abi: readonly unknown[],
  functionName: string,
  args: readonly unknown[],
  chainId: number,
  value = 0n,
): EvmTransaction {
  return {
    to: getAddress(to),
    data: encodeCall(abi, functionName, args),
    value: toHex(value),
    chainId,
  };
}

/** The 20-byte form of an address of either chain kind. */
export function evmForm(address: string): Address {
  return address.startsWith('T') ? tronToEvm(address) : getAddress(address);
}
