import {
  type Address,
  createPublicClient,
  createWalletClient,
  custom,
  type PublicClient,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountOf } from '../../test/chain.ts';
import { compileContract } from '../../test/solidity.ts';
import { type LocalChain, startLocalChain } from '../sandbox/chain.ts';
import { permitDomainOf } from './permit-support.ts';

/**
 * EIP-2612 support read from the tokens themselves on a local chain: the sandbox's TST
 * (OpenZeppelin's ERC20Permit) takes permits; its USDC and DAI stand-ins have none; a token
 * with DAI's own permit (another signature, same `nonces` and `DOMAIN_SEPARATOR`) is not taken
 * for EIP-2612.
 */

/** DAI's permit surface (contracts.md §10): the domain and nonces, not EIP-2612's permit. */
const DAI_STYLE = `
pragma solidity ^0.8.20;
contract DaiStyle {
  string public constant name = "Dai Stablecoin";
  string public constant version = "1";
  bytes32 public DOMAIN_SEPARATOR;
  mapping(address => uint256) public nonces;
  constructor() {
    DOMAIN_SEPARATOR = keccak256(abi.encode(
      keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
      keccak256(bytes(name)), keccak256(bytes(version)), block.chainid, address(this)));
  }
  function permit(address, address, uint256, uint256, bool, uint8, bytes32, bytes32) external {}
}`;

let chain: LocalChain;
/**
 * eth_call requests sent, and what the next one does instead of reaching the chain: fail as an
 * RPC would, or answer an aggregate3 with no results (a node's wrong-shaped answer).
 */
const seen: { calls: number; next: 'fail' | 'short' | null } = { calls: 0, next: null };
/** aggregate3's `(bool, bytes)[]`, empty: its offset, then a length of 0. */
const NO_RESULTS = `0x${(0x20).toString(16).padStart(64, '0')}${'0'.repeat(64)}`;
let client: PublicClient;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 8453 });
  client = counting();
});
afterAll(async () => {
  await chain.close();
});

function counting(): PublicClient {
  return createPublicClient({
    chain: chain.chain,
    transport: custom(
      {
        request: async (args: { method: string; params?: unknown }) => {
          if (args.method === 'eth_call') {
            seen.calls += 1;
            const fault = seen.next;
            seen.next = null;
            if (fault === 'fail') throw new Error('connection reset');
            if (fault === 'short') return NO_RESULTS;
          }
          return chain.provider.request(args as never);
        },
      },
      { retryCount: 0 },
    ),
  }) as PublicClient;
}

async function deploy(source: string, name: string): Promise<Address> {
  const { abi, bytecode } = compileContract(source, name);
  const wallet = createWalletClient({
    account: accountOf(chain, 0),
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  });
  const hash = await wallet.deployContract({ abi, bytecode });
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error('not deployed');
  return receipt.contractAddress;
}

describe('permitDomainOf', () => {
  it('finds the EIP-712 domain of an OpenZeppelin ERC20Permit token', async () => {
    expect(await permitDomainOf(client, chain.addresses.multicall3, chain.addresses.tst)).toEqual({
      name: 'TestToken',
      version: '1',
      chainId: 8453,
      verifyingContract: chain.addresses.tst,
    });
  });

  it('answers null for tokens without permit', async () => {
    const { multicall3, usdc, dai } = chain.addresses;
    expect(await permitDomainOf(client, multicall3, usdc)).toBeNull();
    expect(await permitDomainOf(client, multicall3, dai)).toBeNull();
  });

  it('answers null for a DAI-style permit, whose domain hashes right but whose call is another', async () => {
    const token = await deploy(DAI_STYLE, 'DaiStyle');
    const before = seen.calls;
    expect(await permitDomainOf(client, chain.addresses.multicall3, token)).toBeNull();
    // Two calls: the domain matched, so it took calling permit to say no.
    expect(seen.calls - before).toBe(2);
  });

  it('asks the chain once per token and client', async () => {
    const fresh = counting();
    const before = seen.calls;
    const first = await permitDomainOf(fresh, chain.addresses.multicall3, chain.addresses.tst);
    const asked = seen.calls - before;
    expect(asked).toBe(2);
    expect(await permitDomainOf(fresh, chain.addresses.multicall3, chain.addresses.tst)).toBe(
      first,
    );
    expect(seen.calls - before).toBe(asked);
  });

  it.each([
    ['the RPC failed', 'fail'],
    ['answered with fewer results than calls', 'short'],
  ] as const)('does not remember a read %s', async (_what, fault) => {
    const fresh = counting();
    seen.next = fault;
    await expect(
      permitDomainOf(fresh, chain.addresses.multicall3, chain.addresses.tst),
    ).rejects.toThrow();
    expect(await permitDomainOf(fresh, chain.addresses.multicall3, chain.addresses.tst)).toEqual(
      expect.objectContaining({ name: 'TestToken' }),
    );
  });
});
