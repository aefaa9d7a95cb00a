import { type AbiEvent, encodeAbiParameters, encodeEventTopics, getAbiItem, type Hex } from 'viem';
import type { ContractLog } from '../src/detection/types.ts';
import { commerceWrapperAbi } from '../src/payments/commerce/abi.ts';

/** Logs of the commerce wrapper built from its ABI, for tests that decode and record them. */

type EventName = Extract<(typeof commerceWrapperAbi)[number], { type: 'event' }>['name'];

export interface LogPosition {
  readonly wrapper: string;
  readonly reference: Hex;
  readonly txHash: Hex;
  readonly logIndex: number;
  readonly blockNumber: bigint;
  readonly blockHash: Hex;
  readonly timestamp?: Date;
}

/** A log as the wrapper emits it: the reference indexed (raw, left-aligned), the rest as data. */
export function wrapperLog(
  eventName: EventName,
  values: readonly unknown[],
  at: LogPosition,
): ContractLog {
  const event = getAbiItem({ abi: commerceWrapperAbi, name: eventName }) as AbiEvent;
  const topics = encodeEventTopics({ abi: [event], args: { paymentReference: at.reference } });
  return {
    address: at.wrapper,
    topics: topics.filter((topic): topic is Hex => typeof topic === 'string'),
    data: encodeAbiParameters(
      event.inputs.filter((input) => !input.indexed),
      values,
    ),
    txHash: at.txHash,
    logIndex: at.logIndex,
    blockNumber: at.blockNumber,
    blockHash: at.blockHash,
    timestamp: at.timestamp ?? new Date('2026-11-29T12:00:00Z'),
  };
}
