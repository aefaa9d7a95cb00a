import type { ContractCall, LiFiStep } from '@lifi/types';
import {
  type Address,
  decodeFunctionData,
  getAddress,
  type Hex,
  isAddress,
  isAddressEqual,
} from 'viem';
import { erc20FeeProxyAbi } from '../payments/abis.ts';
import { encodeCall } from '../payments/transactions.ts';
import { decodeDepositV3 } from './across.ts';

/**
 * The last leg of a cross-chain payment: what the route must do on the link's network once the
 * bridge has delivered, and the check that the aggregator's route does exactly that. Each
 * payment (the payee's, then each fee leg, in order) is one `transferFromWithReferenceAndFee`
 * of the link's token through our ERC20FeeProxy under its own payment reference, so the
 * detector sees the link paid as on any same-chain payment. A route whose destination calls
 * differ in anything (target, token, payee, amount, reference, fee, who may pull the tokens)
 * would send the payer's money somewhere else: it is refused before any of it is answered.
 */

/** Gas each fee proxy call is given on the destination network (a payment is ~130k). */
const DESTINATION_CALL_GAS_LIMIT = 200_000n;

/** One fee proxy payment on the destination network. */
interface DestinationPayment {
  readonly payee: Address;
  /** Base units of the destination token. */
  readonly amount: bigint;
  /** `0x` + 16 hex digits. */
  readonly reference: Hex;
  readonly feeAmount: bigint;
  readonly feeAddress: Address;
}

/** What a route must pay on the link's network. */
export interface Destination {
  readonly chainId: number;
  /** Our ERC20FeeProxy on that network. */
  readonly feeProxy: Address;
  readonly token: Address;
  /** The payee's payment first, then the fee legs in the link's order. */
  readonly payments: readonly DestinationPayment[];
}

/** What the destination calls take in all, in base units of the destination token. */
export function destinationTotal(destination: Destination): bigint {
  return destination.payments.reduce((sum, p) => sum + p.amount + p.feeAmount, 0n);
}

function paymentData(destination: Destination, payment: DestinationPayment): Hex {
  return encodeCall(erc20FeeProxyAbi, 'transferFromWithReferenceAndFee', [
    destination.token,
    payment.payee,
    payment.amount,
    payment.reference,
    payment.feeAmount,
    payment.feeAddress,
  ]);
}

/** The `contractCalls` of the aggregator's quote request: one per payment, in order. */
export function contractCallsOf(destination: Destination): ContractCall[] {
  return destination.payments.map((payment) => ({
    fromAmount: String(payment.amount + payment.feeAmount),
    fromTokenAddress: destination.token,
    toContractAddress: destination.feeProxy,
    toContractCallData: paymentData(destination, payment),
    toContractGasLimit: String(DESTINATION_CALL_GAS_LIMIT),
    toApprovalAddress: destination.feeProxy,
  }));
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const sameAddress = (value: unknown, expected: Address): boolean =>
  typeof value === 'string' &&
  isAddress(value, { strict: false }) &&
  isAddressEqual(value, expected);

/** What is wrong with one fee proxy call's data, or null when it makes exactly `payment`. */
function callDataProblem(data: unknown, destination: Destination, payment: DestinationPayment) {
  if (typeof data !== 'string' || !/^0x[0-9a-fA-F]*$/.test(data)) return 'no call data';
  let decoded: ReturnType<typeof decodeFunctionData<typeof erc20FeeProxyAbi>>;
  try {
    decoded = decodeFunctionData({ abi: erc20FeeProxyAbi, data: data as Hex });
  } catch {
    return 'its call data is not a fee proxy payment';
  }
  if (decoded.functionName !== 'transferFromWithReferenceAndFee') {
    return `it calls ${decoded.functionName}, not transferFromWithReferenceAndFee`;
  }
  const [token, to, amount, reference, feeAmount, feeAddress] = decoded.args;
  if (!isAddressEqual(token, destination.token)) return `it pays in ${token}`;
  if (!isAddressEqual(to, payment.payee)) return `it pays ${getAddress(to)}`;
  if (amount !== payment.amount) return `it pays ${amount} base units, not ${payment.amount}`;
  if (reference.toLowerCase() !== payment.reference.toLowerCase()) {
    return `its payment reference is ${reference}`;
  }
  if (feeAmount !== payment.feeAmount || !isAddressEqual(feeAddress, payment.feeAddress)) {
    return `its fee is ${feeAmount} to ${getAddress(feeAddress)}`;
  }
  return null;
}

/** The step's destination calls: its `custom` included steps, in order. */
function customSteps(step: LiFiStep): Json[] {
  return (step.includedSteps as unknown[]).filter(
    (inner): inner is Json => isObject(inner) && inner.type === 'custom',
  );
}

/**
 * An Across deposit in payreq's message format (the sandbox's bridge) carries the calls the
 * relayer will make: they must be the validated ones, byte for byte. A source transaction in
 * another format (LI.FI's diamond) is left to the step's own description.
 */
function depositProblem(step: LiFiStep, destination: Destination): string | null {
  const data = step.transactionRequest?.data;
  if (typeof data !== 'string') return null;
  let deposit: ReturnType<typeof decodeDepositV3>;
  try {
    deposit = decodeDepositV3(data as Hex);
  } catch {
    return null;
  }
  if (deposit.destinationChainId !== BigInt(destination.chainId)) {
    return `the bridge deposit goes to chain ${deposit.destinationChainId}`;
  }
  if (deposit.outputAmount < destinationTotal(destination)) {
    return `the bridge deposit delivers ${deposit.outputAmount} base units, short of ${destinationTotal(destination)}`;
  }
  const { calls } = deposit.message;
  if (calls.length !== destination.payments.length) {
    return `the bridge deposit makes ${calls.length} calls, not ${destination.payments.length}`;
  }
  for (const [index, payment] of destination.payments.entries()) {
    const call = calls[index];
    const expected = paymentData(destination, payment);
    if (
      !call ||
      !isAddressEqual(call.target, destination.feeProxy) ||
      !isAddressEqual(call.approvalAddress, destination.feeProxy) ||
      !isAddressEqual(call.token, destination.token) ||
      call.amount !== payment.amount + payment.feeAmount ||
      call.callData.toLowerCase() !== expected.toLowerCase()
    ) {
      return `the bridge deposit's call ${index + 1} is not the payment asked for`;
    }
  }
  return null;
}

/**
 * What is wrong with a route's destination calls, or null when they pay `destination` exactly:
 * one `custom` included step per payment, in order, each on the link's network, calling our fee
 * proxy with the payment's exact arguments, the proxy the one allowed to pull the tokens, and
 * the amount it receives the payment's; and, when the source transaction is a deposit whose
 * message can be read, that message making the same calls.
 */
export function destinationProblem(step: LiFiStep, destination: Destination): string | null {
  if (step.action.toChainId !== destination.chainId) {
    return `the route ends on chain ${step.action.toChainId}, not ${destination.chainId}`;
  }
  if (!sameAddress(step.action.toToken.address, destination.token)) {
    return `the route delivers ${step.action.toToken.address}, not ${destination.token}`;
  }
  const calls = customSteps(step);
  if (calls.length !== destination.payments.length) {
    return `the route makes ${calls.length} destination calls, not ${destination.payments.length}`;
  }
  for (const [index, payment] of destination.payments.entries()) {
    const call = calls[index];
    const action = isObject(call?.action) ? call.action : {};
    const estimate = isObject(call?.estimate) ? call.estimate : {};
    const which = `destination call ${index + 1}`;
    if (action.toChainId !== destination.chainId) return `${which} is on another chain`;
    if (!sameAddress(action.toContractAddress, destination.feeProxy)) {
      return `${which} calls ${String(action.toContractAddress)}, not the fee proxy`;
    }
    const problem = callDataProblem(action.toContractCallData, destination, payment);
    if (problem !== null) return `${which}: ${problem}`;
    if (!sameAddress(estimate.approvalAddress, destination.feeProxy)) {
      return `${which} lets ${String(estimate.approvalAddress)} pull the tokens`;
    }
    if (action.fromAmount !== String(payment.amount + payment.feeAmount)) {
      return `${which} receives ${String(action.fromAmount)} base units`;
    }
  }
  return depositProblem(step, destination);
}
