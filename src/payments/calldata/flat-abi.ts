import { type AbiParameter, getAddress, type Hex } from 'viem';

/**
 * Arguments of a function whose parameters are all addresses, unsigned integers, booleans or
 * `bytes` (the payment proxies' and ERC20's), encoded directly: the calls every `/pay` and
 * payout builds, where viem's general ABI coder was a twentieth of the request's CPU. Null for
 * any other list of parameters, which viem encodes. The layout is the ABI's (flat-abi.test.ts
 * holds it to viem's coder on random arguments); arguments are checked as viem checks them,
 * except odd-length `bytes`, refused here (viem would encode malformed data). An encoder
 * answers null for an integer given otherwise than as a bigint or a safe number (a numeric
 * string, say), which viem then encodes as it always did.
 */
export type FlatEncoder = (args: readonly unknown[]) => string | null;

const WORD = 64;
const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;

type Slot =
  | { readonly kind: 'address' }
  | { readonly kind: 'uint'; readonly max: bigint }
  | { readonly kind: 'bool' }
  | { readonly kind: 'bytes' };

function slotOf(parameter: AbiParameter): Slot | null {
  const { type } = parameter;
  if (type === 'address') return { kind: 'address' };
  if (type === 'bool') return { kind: 'bool' };
  if (type === 'bytes') return { kind: 'bytes' };
  const uint = /^uint(\d*)$/.exec(type);
  if (uint) {
    const bits = uint[1] === '' ? 256 : Number(uint[1]);
    return { kind: 'uint', max: (1n << BigInt(bits)) - 1n };
  }
  return null;
}

export function flatEncoder(name: string, inputs: readonly AbiParameter[]): FlatEncoder | null {
  const slots: Slot[] = [];
  for (const input of inputs) {
    const slot = slotOf(input);
    if (slot === null) return null;
    slots.push(slot);
  }
  const refuse = (index: number, value: unknown, what: string): never => {
    throw new Error(`${name}: argument ${index} (${String(value)}) is not ${what}`);
  };
  return (args) => {
    if (args.length !== slots.length) {
      throw new Error(`${name} takes ${slots.length} arguments, not ${args.length}`);
    }
    let head = '';
    let tail = '';
    const headBytes = slots.length * 32;
    for (const [i, slot] of slots.entries()) {
      const value = args[i];
      switch (slot.kind) {
        case 'address': {
          if (typeof value !== 'string' || !HEX_ADDRESS.test(value)) refuse(i, value, 'an address');
          const address = value as string;
          const digits = address.slice(2);
          // Anything but lower case must be the EIP-55 checksummed form (viem's isAddress).
          if (digits !== digits.toLowerCase() && getAddress(address) !== address) {
            refuse(i, value, 'a correctly checksummed address');
          }
          head += digits.toLowerCase().padStart(WORD, '0');
          break;
        }
        case 'uint': {
          let number: bigint;
          if (typeof value === 'bigint') number = value;
          else if (typeof value === 'number' && Number.isSafeInteger(value)) number = BigInt(value);
          else return null;
          if (number < 0n || number > slot.max) refuse(i, value, 'in range');
          head += number.toString(16).padStart(WORD, '0');
          break;
        }
        case 'bool':
          if (typeof value !== 'boolean') refuse(i, value, 'a boolean');
          head += value ? '1'.padStart(WORD, '0') : '0'.padStart(WORD, '0');
          break;
        case 'bytes': {
          if (typeof value !== 'string' || !HEX_BYTES.test(value)) refuse(i, value, 'hex bytes');
          const data = (value as Hex).slice(2);
          head += (headBytes + tail.length / 2).toString(16).padStart(WORD, '0');
          tail +=
            (data.length / 2).toString(16).padStart(WORD, '0') +
            data.padEnd(Math.ceil(data.length / WORD) * WORD, '0');
          break;
        }
      }
    }
    return head + tail;
  };
}
