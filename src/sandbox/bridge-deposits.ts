import {
  type Account,
  type Address,
  type Chain,
  encodeAbiParameters,
  type Hex,
  keccak256,
  type PublicClient,
  parseAbiParameters,
  type Transport,
  type WalletClient,
} from 'viem';
import { spokePoolArtifact } from './across-artifacts.ts';

/**
 * What the local bridge's relayer knows of Across deposits: the relay data a `V3FundsDeposited`
 * log gives (the struct `fillV3Relay` takes) and the relay hash the destination SpokePool keys
 * its fills by.
 */

export const spokePoolAbi = spokePoolArtifact.abi;

/** One local chain as the relayer uses it: read, send as the relayer, and its SpokePool. */
export interface BridgeChain {
  readonly chainId: number;
  readonly client: PublicClient;
  readonly wallet: WalletClient<Transport, Chain, Account>;
  readonly spokePool: Address;
}

/** Across's V3RelayData, field for field. */
export interface V3RelayData {
  readonly depositor: Address;
  readonly recipient: Address;
  readonly exclusiveRelayer: Address;
  readonly inputToken: Address;
  readonly outputToken: Address;
  readonly inputAmount: bigint;
  readonly outputAmount: bigint;
  readonly originChainId: bigint;
  readonly depositId: number;
  /** Unix seconds. */
  readonly fillDeadline: number;
  readonly exclusivityDeadline: number;
  readonly message: Hex;
}

export interface SeenDeposit {
  readonly relayData: V3RelayData;
  readonly destinationChainId: number;
  readonly depositTxHash: Hex;
}

/** Where a deposit stands for the relayer. */
export type DepositStatus =
  /** Seen, not filled yet: waiting for its delay, or the relayer is paused. */
  | 'pending'
  /** Told not to fill it: it waits for its deadline, then is refunded. */
  | 'held'
  | 'filled'
  | 'refunded'
  /** Its destination chain is none of the relayer's. */
  | 'unroutable';

/** `origin:depositId`: a deposit's identity across the relayer's chains. */
export function depositKey(originChainId: number | bigint, depositId: number): string {
  return `${originChainId}:${depositId}`;
}

const RELAY_HASH_PARAMETERS = parseAbiParameters(
  '(address depositor, address recipient, address exclusiveRelayer, address inputToken, address outputToken, uint256 inputAmount, uint256 outputAmount, uint256 originChainId, uint32 depositId, uint32 fillDeadline, uint32 exclusivityDeadline, bytes message), uint256',
);

/** `keccak256(abi.encode(relayData, destinationChainId))`, as Across's SpokePool hashes a relay. */
export function relayHash(relayData: V3RelayData, destinationChainId: number): Hex {
  return keccak256(
    encodeAbiParameters(RELAY_HASH_PARAMETERS, [relayData, BigInt(destinationChainId)]),
  );
}

/** The deposits made on `origin` in the given blocks, oldest first. */
export async function depositsIn(
  origin: BridgeChain,
  fromBlock: bigint,
  toBlock: bigint,
): Promise<SeenDeposit[]> {
  const logs = await origin.client.getContractEvents({
    address: origin.spokePool,
    abi: spokePoolAbi,
    eventName: 'V3FundsDeposited',
    fromBlock,
    toBlock,
    strict: true,
  });
  return logs.map((log) => {
    const { args } = log;
    return {
      relayData: {
        depositor: args.depositor,
        recipient: args.recipient,
        exclusiveRelayer: args.exclusiveRelayer,
        inputToken: args.inputToken,
        outputToken: args.outputToken,
        inputAmount: args.inputAmount,
        outputAmount: args.outputAmount,
        originChainId: BigInt(origin.chainId),
        depositId: args.depositId,
        fillDeadline: args.fillDeadline,
        exclusivityDeadline: args.exclusivityDeadline,
        message: args.message,
      },
      destinationChainId: Number(args.destinationChainId),
      depositTxHash: log.transactionHash,
    };
  });
}
