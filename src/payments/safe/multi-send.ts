import { concatHex, encodeFunctionData, encodePacked, getAddress, type Hex, size } from 'viem';
import type { EvmTransaction } from '../transactions.ts';
import { multiSendAbi } from './abi.ts';

/** A Safe transaction's `operation`: a call, or a delegatecall (the target's code runs as the Safe). */
const SAFE_CALL = 0;
export const SAFE_DELEGATECALL = 1;

/**
 * `multiSend(bytes)` of MultiSendCallOnly 1.4.1 for several calls (contracts.md §10.2): each
 * call packed as `uint8 operation ‖ address to ‖ uint256 value ‖ uint256 dataLength ‖ bytes
 * data`, one after the other, every operation a plain call (the CallOnly contract refuses a
 * delegatecall among them). A Safe delegatecalls this, so each call is made by the Safe itself:
 * its tokens approved and paid, its ether carried as each call's value, in order, all or none.
 */
export function encodeMultiSend(calls: readonly EvmTransaction[]): Hex {
  if (calls.length === 0) throw new Error('a multiSend needs at least one call');
  const packed = concatHex(
    calls.map((call) =>
      encodePacked(
        ['uint8', 'address', 'uint256', 'uint256', 'bytes'],
        [SAFE_CALL, getAddress(call.to), BigInt(call.value), BigInt(size(call.data)), call.data],
      ),
    ),
  );
  return encodeFunctionData({ abi: multiSendAbi, functionName: 'multiSend', args: [packed] });
}
