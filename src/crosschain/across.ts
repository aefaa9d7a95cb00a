import {
  type Address,
  decodeAbiParameters,
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  type Hex,
  parseAbi,
  parseAbiParameters,
} from 'viem';

/**
 * The Across leg of a route: SpokePool's `depositV3` on the source chain, whose `message` the
 * relayer hands to the recipient on the destination chain with the bridged tokens. The message
 * format here is payreq's own, shared by the fake aggregator (which writes it) and the sandbox
 * relayer (which executes it): the calls to make on the destination chain, in order, and who
 * gets whatever they leave. (LI.FI's own routes wrap the same deposit in its diamond and its
 * receiver's format; payreq validates a route by its step's destination call, not by these bytes.)
 */

const acrossSpokePoolAbi = parseAbi([
  'function depositV3(address depositor, address recipient, address inputToken, address outputToken, uint256 inputAmount, uint256 outputAmount, uint256 destinationChainId, address exclusiveRelayer, uint32 quoteTimestamp, uint32 fillDeadline, uint32 exclusivityDeadline, bytes message) payable',
]);

/** One call the relayer makes on the destination chain, after approving `amount` of `token`. */
export interface DestinationCall {
  readonly target: Address;
  readonly callData: Hex;
  /** Who may pull the tokens: the target itself unless the route names another. */
  readonly approvalAddress: Address;
  readonly token: Address;
  readonly amount: bigint;
}

interface DepositMessage {
  /** Receives the output the calls did not use, and the whole of it if a call fails. */
  readonly fallbackRecipient: Address;
  readonly calls: readonly DestinationCall[];
}

export interface AcrossDeposit {
  readonly depositor: Address;
  readonly recipient: Address;
  readonly inputToken: Address;
  readonly outputToken: Address;
  readonly inputAmount: bigint;
  readonly outputAmount: bigint;
  readonly destinationChainId: bigint;
  readonly exclusiveRelayer: Address;
  /** Unix seconds. */
  readonly quoteTimestamp: number;
  /** Unix seconds: a deposit not filled by then is refunded to the depositor. */
  readonly fillDeadline: number;
  readonly exclusivityDeadline: number;
  readonly message: DepositMessage;
}

const MESSAGE_PARAMETERS = parseAbiParameters(
  'address fallbackRecipient, (address target, bytes callData, address approvalAddress, address token, uint256 amount)[] calls',
);

function encodeDepositMessage(message: DepositMessage): Hex {
  return encodeAbiParameters(MESSAGE_PARAMETERS, [message.fallbackRecipient, [...message.calls]]);
}

function decodeDepositMessage(data: Hex): DepositMessage {
  const [fallbackRecipient, calls] = decodeAbiParameters(MESSAGE_PARAMETERS, data);
  return {
    fallbackRecipient: getAddress(fallbackRecipient),
    calls: calls.map((call) => ({
      target: getAddress(call.target),
      callData: call.callData,
      approvalAddress: getAddress(call.approvalAddress),
      token: getAddress(call.token),
      amount: call.amount,
    })),
  };
}

export function encodeDepositV3(deposit: AcrossDeposit): Hex {
  return encodeFunctionData({
    abi: acrossSpokePoolAbi,
    functionName: 'depositV3',
    args: [
      deposit.depositor,
      deposit.recipient,
      deposit.inputToken,
      deposit.outputToken,
      deposit.inputAmount,
      deposit.outputAmount,
      deposit.destinationChainId,
      deposit.exclusiveRelayer,
      deposit.quoteTimestamp,
      deposit.fillDeadline,
      deposit.exclusivityDeadline,
      encodeDepositMessage(deposit.message),
    ],
  });
}

/** The deposit a source transaction's data makes; throws when it is not a `depositV3` call. */
export function decodeDepositV3(data: Hex): AcrossDeposit {
  const { args } = decodeFunctionData({ abi: acrossSpokePoolAbi, data });
  const [depositor, recipient, inputToken, outputToken, inputAmount, outputAmount, toChain] = args;
  const [, , , , , , , exclusiveRelayer, quoteTimestamp, fillDeadline, exclusivity, message] = args;
  return {
    depositor: getAddress(depositor),
    recipient: getAddress(recipient),
    inputToken: getAddress(inputToken),
    outputToken: getAddress(outputToken),
    inputAmount,
    outputAmount,
    destinationChainId: toChain,
    exclusiveRelayer: getAddress(exclusiveRelayer),
    quoteTimestamp,
    fillDeadline,
    exclusivityDeadline: exclusivity,
    message: decodeDepositMessage(message),
  };
}
