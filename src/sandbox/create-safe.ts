import { randomBytes } from 'node:crypto';
import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  hexToBigInt,
  isAddress,
  parseAbi,
  parseUnits,
} from 'viem';
import { sandboxAddresses } from './addresses.ts';
import { sandboxClient, sendMined, testWallet } from './cli-http.ts';
import { createdSafe, createSafeCall } from './safe.ts';

/** Sandbox USDC's decimals (network.ts). */
const USDC_DECIMALS = 6;
const TRANSFER = parseAbi(['function transfer(address to, uint256 amount) returns (bool)']);

/**
 * `payreq sandbox create-safe --owners <a>,<b>,<c> --threshold <n>`: a Safe 1.4.1 (SafeL2)
 * made through the canonical proxy factory on the running server's sandbox chain, by test
 * wallet `wallet`, which then sends it `fund` sandbox USDC when asked. Owners are addresses or
 * test wallet numbers. Each call makes a new Safe (a random salt), even for the same owners.
 */
export async function sandboxCreateSafe(input: {
  baseUrl: string;
  owners: readonly string[];
  threshold: number;
  wallet: number;
  fund?: string | undefined;
}): Promise<{ safe: Address; owners: Address[]; threshold: number; transactions: Hex[] }> {
  const sender = testWallet(input.wallet);
  const owners = input.owners.map(ownerAddress);
  const call = createSafeCall({
    owners,
    threshold: input.threshold,
    saltNonce: hexToBigInt(`0x${randomBytes(16).toString('hex')}`),
  });
  const sandbox = sandboxClient(input.baseUrl, sender);
  const created = await sendMined(sandbox, call);
  const safe = createdSafe(created.logs);
  const transactions = [created.transactionHash];
  if (input.fund !== undefined) {
    const funded = await sendMined(sandbox, {
      to: sandboxAddresses().usdc,
      data: encodeFunctionData({
        abi: TRANSFER,
        functionName: 'transfer',
        args: [safe, parseUnits(input.fund, USDC_DECIMALS)],
      }),
    });
    transactions.push(funded.transactionHash);
  }
  return { safe, owners, threshold: input.threshold, transactions };
}

/** `2` is test wallet 2's address; an address is itself, checksummed. */
function ownerAddress(owner: string): Address {
  if (/^\d{1,3}$/.test(owner)) return testWallet(Number(owner), '--owners').address;
  if (isAddress(owner, { strict: false })) return getAddress(owner);
  throw new Error(`--owners takes addresses or test wallet numbers (got "${owner}")`);
}
