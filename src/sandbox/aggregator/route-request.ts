import { type Address, getAddress, type Hex, isAddress, isHex } from 'viem';

/**
 * The fake aggregator's reading of LI.FI's two route requests: a contract-calls quote
 * (`POST /v1/quote/contractCalls`) and a step to refresh (`POST /v1/advanced/stepTransaction`,
 * its destination calls read back from the step's `custom` included steps).
 */

/** What a quote or a step transaction asks for, read from LI.FI's request shapes. */
export interface RouteRequest {
  readonly fromChain: number;
  readonly fromToken: Address;
  readonly fromAddress: Address;
  readonly toChain: number;
  readonly toToken: Address;
  readonly fallbackAddress: Address;
  /** Top-level `fromAmount` (spend exactly) or `toAmount` (deliver at least); else the calls' sum. */
  readonly fromAmount: bigint | null;
  readonly toAmount: bigint | null;
  readonly calls: readonly RequestedCall[];
}

export interface RequestedCall {
  readonly toContractAddress: Address;
  readonly toContractCallData: Hex;
  readonly fromAmount: bigint;
  readonly fromTokenAddress: Address;
  readonly toContractGasLimit: string;
  readonly toApprovalAddress: Address | null;
}

export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: string };

type Json = Record<string, unknown>;

class Invalid extends Error {}

function object(value: unknown, name: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Invalid(`${name} must be an object`);
  }
  return value as Json;
}

function address(value: unknown, name: string): Address {
  if (typeof value !== 'string' || !isAddress(value, { strict: false })) {
    throw new Invalid(`${name} must be an address`);
  }
  return getAddress(value);
}

function chain(value: unknown, name: string): number {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^[1-9]\d{0,15}$/.test(text)) {
    throw new Invalid(`${name} must be a chain id`);
  }
  return Number(text);
}

function amount(value: unknown, name: string): bigint {
  if (typeof value !== 'string' || !/^\d{1,78}$/.test(value)) {
    throw new Invalid(`${name} must be an amount in base units`);
  }
  return BigInt(value);
}

function optionalAmount(value: unknown, name: string): bigint | null {
  return value === undefined ? null : amount(value, name);
}

function hex(value: unknown, name: string): Hex {
  if (typeof value !== 'string' || !isHex(value)) throw new Invalid(`${name} must be hex`);
  return value;
}

function parse<T>(read: () => T): Parsed<T> {
  try {
    return { ok: true, value: read() };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, message: error.message };
    throw error;
  }
}

/** The bridges a request allows: all when it says nothing. */
export function allowsBridge(body: unknown, bridge: string): boolean {
  if (typeof body !== 'object' || body === null) return true;
  const { allowBridges } = body as Json;
  return !Array.isArray(allowBridges) || allowBridges.includes(bridge);
}

export function parseQuoteRequest(body: unknown): Parsed<RouteRequest> {
  return parse(() => {
    const json = object(body, 'body');
    const fromAddress = address(json.fromAddress, 'fromAddress');
    if (!Array.isArray(json.contractCalls) || json.contractCalls.length === 0) {
      throw new Invalid('contractCalls must list at least one call');
    }
    const calls = json.contractCalls.map((raw: unknown, index): RequestedCall => {
      const call = object(raw, `contractCalls[${index}]`);
      const name = (field: string) => `contractCalls[${index}].${field}`;
      return {
        toContractAddress: address(call.toContractAddress, name('toContractAddress')),
        toContractCallData: hex(call.toContractCallData, name('toContractCallData')),
        fromAmount: amount(call.fromAmount, name('fromAmount')),
        fromTokenAddress: address(call.fromTokenAddress, name('fromTokenAddress')),
        toContractGasLimit:
          typeof call.toContractGasLimit === 'string' ? call.toContractGasLimit : '0',
        toApprovalAddress:
          call.toApprovalAddress === undefined
            ? null
            : address(call.toApprovalAddress, name('toApprovalAddress')),
      };
    });
    return {
      fromChain: chain(json.fromChain, 'fromChain'),
      fromToken: address(json.fromToken, 'fromToken'),
      fromAddress,
      toChain: chain(json.toChain, 'toChain'),
      toToken: address(json.toToken, 'toToken'),
      fallbackAddress:
        json.toFallbackAddress === undefined
          ? fromAddress
          : address(json.toFallbackAddress, 'toFallbackAddress'),
      fromAmount: optionalAmount(json.fromAmount, 'fromAmount'),
      toAmount: optionalAmount(json.toAmount, 'toAmount'),
      calls,
    };
  });
}

/** A step this fake made: the same route asked again, its amounts those the calls need. */
export function parseStep(body: unknown): Parsed<{ id: string; request: RouteRequest }> {
  return parse(() => {
    const step = object(body, 'body');
    if (typeof step.id !== 'string' || step.id === '') throw new Invalid('id must be a string');
    const action = object(step.action, 'action');
    const fromAddress = address(action.fromAddress, 'action.fromAddress');
    if (!Array.isArray(step.includedSteps)) throw new Invalid('includedSteps must be a list');
    const custom = step.includedSteps
      .map((inner: unknown, index) => object(inner, `includedSteps[${index}]`))
      .filter((inner) => inner.type === 'custom');
    if (custom.length === 0) throw new Invalid('includedSteps hold no contract call');
    let fallbackAddress: Address = fromAddress;
    const calls = custom.map((inner, index): RequestedCall => {
      const name = (field: string) => `includedSteps[custom ${index}].${field}`;
      const callAction = object(inner.action, name('action'));
      const estimate = object(inner.estimate, name('estimate'));
      fallbackAddress = address(callAction.toFallbackAddress, name('action.toFallbackAddress'));
      const target = address(callAction.toContractAddress, name('action.toContractAddress'));
      const approval = address(estimate.approvalAddress, name('estimate.approvalAddress'));
      return {
        toContractAddress: target,
        toContractCallData: hex(callAction.toContractCallData, name('action.toContractCallData')),
        fromAmount: amount(callAction.fromAmount, name('action.fromAmount')),
        fromTokenAddress: address(
          object(callAction.fromToken, name('action.fromToken')).address,
          name('action.fromToken.address'),
        ),
        toContractGasLimit:
          typeof callAction.callDataGasLimit === 'string' ? callAction.callDataGasLimit : '0',
        toApprovalAddress: approval === target ? null : approval,
      };
    });
    return {
      id: step.id,
      request: {
        fromChain: chain(action.fromChainId, 'action.fromChainId'),
        fromToken: address(
          object(action.fromToken, 'action.fromToken').address,
          'action.fromToken.address',
        ),
        fromAddress,
        toChain: chain(action.toChainId, 'action.toChainId'),
        toToken: address(
          object(action.toToken, 'action.toToken').address,
          'action.toToken.address',
        ),
        fallbackAddress,
        fromAmount: null,
        toAmount: null,
        calls,
      },
    };
  });
}
