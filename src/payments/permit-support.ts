import {
  type Address,
  decodeFunctionResult,
  domainSeparator,
  getAddress,
  type Hex,
  maxUint256,
  type PublicClient,
  parseAbi,
  parseSignature,
  type TypedDataDomain,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { decodeAggregate3, encodeAggregate3 } from './calldata/aggregate3.ts';
import { encodeCall } from './transactions.ts';

/**
 * Whether a token takes EIP-2612 permits, found on chain rather than from a list (contracts.md
 * §10 lists which stablecoins are believed to, several unverified, and DAI's permit has the
 * same `nonces` and `DOMAIN_SEPARATOR` but another signature): the token must answer
 * `DOMAIN_SEPARATOR()`, one domain we can write (`eip712Domain()`'s, or `name()` with
 * `version()`) must hash to it, and a permit signed over that domain by a throwaway key must
 * succeed when called (an `eth_call`, nothing sent). The verdict is kept per client (a client
 * is one network's) and token for the life of the process: a contract's code does not change
 * under its address.
 */

export const tokenPermitAbi = parseAbi([
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function nonces(address owner) view returns (uint256)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
  'function name() view returns (string)',
  'function version() view returns (string)',
]);

/** EIP-2612's `Permit` struct, in its order (typehash 0x6e71edae…d6126c9). */
export const PERMIT_TYPES = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

/** The EIP-712 domain a token's permits are signed over. */
export interface PermitDomain {
  readonly name?: string;
  readonly version?: string;
  readonly chainId?: number;
  readonly verifyingContract?: Address;
  readonly salt?: Hex;
}

const verdicts = new WeakMap<PublicClient, Map<string, Promise<PermitDomain | null>>>();

/**
 * The domain of the token's EIP-2612 permits, or null when it takes none. A read that fails
 * (the RPC, not the token) is not remembered: the next call asks again.
 */
export function permitDomainOf(
  client: PublicClient,
  multicall3: Address,
  token: Address,
): Promise<PermitDomain | null> {
  let known = verdicts.get(client);
  if (!known) {
    known = new Map();
    verdicts.set(client, known);
  }
  const key = token.toLowerCase();
  const cached = known.get(key);
  if (cached) return cached;
  const verdict = detect(client, multicall3, getAddress(token));
  known.set(key, verdict);
  verdict.catch(() => known.delete(key));
  return verdict;
}

/** EIP-5267's `fields` bits: which members the domain has. */
const FIELD_BITS = { name: 1, version: 2, chainId: 4, verifyingContract: 8, salt: 16 } as const;

async function detect(
  client: PublicClient,
  multicall3: Address,
  token: Address,
): Promise<PermitDomain | null> {
  const probe = privateKeyToAccount(generatePrivateKey());
  const [separator, eip712, name, version, nonce] = await tryCalls(client, multicall3, token, [
    ['DOMAIN_SEPARATOR', []],
    ['eip712Domain', []],
    ['name', []],
    ['version', []],
    ['nonces', [probe.address]],
  ]);
  if (separator === undefined || nonce === undefined) return null;
  const chainId = await client.getChainId();
  const candidates: PermitDomain[] = [];
  if (eip712 !== undefined) {
    const [fields, n, v, id, contract, salt] = eip712 as readonly [
      Hex,
      string,
      string,
      bigint,
      Address,
      Hex,
    ];
    const has = (bit: number) => (Number.parseInt(fields.slice(2), 16) & bit) !== 0;
    candidates.push({
      ...(has(FIELD_BITS.name) && { name: n }),
      ...(has(FIELD_BITS.version) && { version: v }),
      ...(has(FIELD_BITS.chainId) && { chainId: Number(id) }),
      ...(has(FIELD_BITS.verifyingContract) && { verifyingContract: getAddress(contract) }),
      ...(has(FIELD_BITS.salt) && { salt }),
    });
  }
  if (typeof name === 'string') {
    // Without `version()`, OpenZeppelin's and most others' is "1"; some domains have none.
    const versions = typeof version === 'string' ? [version] : ['1', undefined];
    for (const v of versions) {
      candidates.push({
        name,
        ...(v !== undefined && { version: v }),
        chainId,
        verifyingContract: token,
      });
    }
  }
  const domain = candidates.find(
    (candidate) =>
      domainSeparator({ domain: candidate as TypedDataDomain }).toLowerCase() ===
      String(separator).toLowerCase(),
  );
  if (!domain) return null;

  // The domain hashes right; whether `permit` is EIP-2612's is what calling it says.
  const deadline = maxUint256;
  const signature = parseSignature(
    await probe.signTypedData({
      domain: domain as TypedDataDomain,
      types: PERMIT_TYPES,
      primaryType: 'Permit',
      message: {
        owner: probe.address,
        spender: multicall3,
        value: 1n,
        nonce: nonce as bigint,
        deadline,
      },
    }),
  );
  const v = signature.v ?? BigInt(signature.yParity + 27);
  const [permitted] = await tryCalls(client, multicall3, token, [
    ['permit', [probe.address, multicall3, 1n, deadline, Number(v), signature.r, signature.s]],
  ]);
  // permit returns nothing: a call that succeeded answers an empty tuple.
  return permitted === undefined ? null : domain;
}

type TokenFunction = 'DOMAIN_SEPARATOR' | 'eip712Domain' | 'name' | 'version' | 'nonces' | 'permit';

/**
 * Calls to the token in one `aggregate3` that may each fail: a call the token reverts, or
 * answers with what its ABI cannot decode, is `undefined` (its answer is "no"); a failing
 * RPC throws, so it is never taken for the token's answer.
 */
async function tryCalls(
  client: PublicClient,
  multicall3: Address,
  token: Address,
  calls: readonly (readonly [TokenFunction, readonly unknown[]])[],
): Promise<unknown[]> {
  const answer = await client.request({
    method: 'eth_call',
    params: [
      {
        to: multicall3,
        data: encodeAggregate3(
          calls.map(([functionName, args]) => ({
            target: token,
            allowFailure: true,
            callData: encodeCall(tokenPermitAbi, functionName, args),
          })),
        ),
      },
      'latest',
    ],
  });
  const results = decodeAggregate3(answer);
  // A short list is a broken answer, not tokens that reverted: remembered, it would deny the
  // token's permits for the process's life.
  if (results.length !== calls.length) {
    throw new Error(`aggregate3 of ${calls.length} calls answered ${results.length} results`);
  }
  return calls.map(([functionName], index) => {
    const result = results[index];
    if (!result?.success) return undefined;
    try {
      const decoded = decodeFunctionResult({
        abi: tokenPermitAbi,
        functionName,
        data: result.returnData,
      });
      return functionName === 'permit' ? true : decoded;
    } catch {
      return undefined;
    }
  });
}
