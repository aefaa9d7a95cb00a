import { type Address, concat, getContractAddress, type Hex, size, toHex } from 'viem';

/**
 * A minimal ERC-1271 smart-contract wallet for sign-in tests, assembled by hand so no compiler is
 * needed: `isValidSignature(bytes32 hash, bytes signature)` answers the magic value 0x1626ba7e
 * when `ecrecover(hash, v, r, s)` is the owner baked into the code, 0xffffffff otherwise. The
 * selector is not checked; the wallet answers every call the same way.
 */
export function walletRuntime(owner: Address): Hex {
  const verdict = (value: Hex): Hex =>
    concat([
      '0x63', // PUSH4 value
      value,
      '0x60e01b', // PUSH1 224 SHL: left-align the bytes4
      '0x600052', // PUSH1 0 MSTORE
      '0x60206000f3', // PUSH1 32 PUSH1 0 RETURN
    ]);
  const head = concat([
    '0x600435600052', // mem[0x00] = hash (calldata 4)
    '0x602435600401', // p = 4 + offset of the signature bytes (points at its length)
    '0x8060200135604052', // mem[0x40] = r = calldata[p + 32]
    '0x8060400135606052', // mem[0x60] = s = calldata[p + 64]
    '0x6060013560001a602052', // mem[0x20] = v = first byte at p + 96
    // STATICCALL(gas, ecrecover 0x01, in 0x00..0x80, out 0x80..0xa0), result dropped: a failed
    // recovery leaves 0x80 zero, which is no owner.
    '0x602060806080600060015afa50',
    '0x608051', // PUSH1 0x80 MLOAD: the recovered address
    '0x73', // PUSH20 owner
    owner,
    '0x14', // EQ
  ]);
  const fail = verdict('0xffffffff');
  // PUSH1 <ok> JUMPI, then the failing verdict, then JUMPDEST and the magic value.
  const ok = size(head) + 3 + size(fail);
  return concat([
    head,
    '0x60',
    toHex(ok, { size: 1 }),
    '0x57',
    fail,
    '0x5b',
    verdict('0x1626ba7e'),
  ]);
}

/** Creation code that deploys `runtime` as it is (CODECOPY the tail, RETURN it). */
export function creationCode(runtime: Hex): Hex {
  const prefix = (length: number, offset: number): Hex =>
    concat([
      '0x61', // PUSH2 length
      toHex(length, { size: 2 }),
      '0x80', // DUP1
      '0x60', // PUSH1 offset
      toHex(offset, { size: 1 }),
      '0x6000', // PUSH1 0
      '0x39', // CODECOPY(0, offset, length)
      '0x6000', // PUSH1 0
      '0xf3', // RETURN(0, length)
    ]);
  const length = size(runtime);
  return concat([prefix(length, size(prefix(0, 0))), runtime]);
}

/**
 * A factory whose every call CREATE2s its calldata (creation code) with salt 0 and returns the
 * new address: the factory an ERC-6492 signature names for a wallet not yet deployed.
 */
export const FACTORY_RUNTIME: Hex = concat([
  '0x366000600037', // CALLDATACOPY(0, 0, CALLDATASIZE)
  '0x6000', // PUSH1 0: salt
  '0x36', // CALLDATASIZE
  '0x6000', // PUSH1 0: offset
  '0x6000', // PUSH1 0: value
  '0xf5', // CREATE2(value, offset, size, salt)
  '0x600052', // PUSH1 0 MSTORE
  '0x60206000f3', // PUSH1 32 PUSH1 0 RETURN
]);

const ZERO_SALT: Hex = `0x${'00'.repeat(32)}`;

/** Where FACTORY_RUNTIME at `factory` puts a wallet built from `creation`. */
export function counterfactualAddress(factory: Address, creation: Hex): Address {
  return getContractAddress({
    opcode: 'CREATE2',
    from: factory,
    salt: ZERO_SALT,
    bytecode: creation,
  });
}

/**
 * The least a smart-contract wallet does: calldata `target (20 bytes) ++ call data` makes it
 * CALL `target` with that data, as itself, and revert if the call does. No owner check: tests
 * put it at an address of their own (`hardhat_setCode`) to pay from a contract, where the
 * transaction's sender (an EOA) is not the account whose tokens move.
 */
export const FORWARDER_RUNTIME: Hex = concat([
  '0x60006000', // PUSH1 0 PUSH1 0: retSize, retOffset
  '0x60143603', // PUSH1 20 CALLDATASIZE SUB: argsSize = CALLDATASIZE - 20
  '0x806014600037', // DUP1 PUSH1 20 PUSH1 0 CALLDATACOPY(0, 20, argsSize)
  '0x60006000', // PUSH1 0 PUSH1 0: argsOffset, value
  '0x60003560601c', // PUSH1 0 CALLDATALOAD PUSH1 96 SHR: the target
  '0x5af1', // GAS CALL
  '0x602657', // PUSH1 0x26 JUMPI: on success, to the STOP
  '0x3d6000803e', // RETURNDATACOPY(0, 0, RETURNDATASIZE)
  '0x3d6000fd', // REVERT(0, RETURNDATASIZE)
  '0x5b00', // JUMPDEST STOP
]);
