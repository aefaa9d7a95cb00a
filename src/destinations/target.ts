import { AppError, ValidationError } from '../base/errors.ts';
import type { Currency } from '../chains/currencies.ts';
import type { Network } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import {
  buildDestinationId,
  type DestinationId,
  normaliseToken,
  normaliseWallet,
  parseDestinationId,
  parseWallet,
} from './destination-id.ts';

/**
 * What a destination id names (a wallet, a chain, a token), checked against the networks and
 * tokens this server serves: pure, no storage.
 */

export const INVALID_DESTINATION_ID = 'Invalid destination ID format';

/** What a destination id names, checked against the networks and tokens we serve. */
export interface ResolvedTarget {
  readonly id: DestinationId;
  readonly network: Network;
  readonly currency: Currency;
}

/** Validates wallet, chain and token together; throws 400 naming what is wrong. */
export function resolveTarget(
  chains: ChainRegistry,
  input: { walletAddress: string; chainId: number; tokenAddress: string },
): ResolvedTarget {
  const network = chains.networkByChainId(input.chainId);
  if (!network) {
    throw new ValidationError([
      {
        field: 'chainId',
        message: `is not a supported chain (${chains.networks.map((n) => n.chainId).join(', ')})`,
      },
    ]);
  }
  const id = buildDestinationId(input.walletAddress, input.chainId, input.tokenAddress);
  if (id === null) {
    // Say which address is wrong, in the address parser's words.
    const wallet = parseWallet(input.walletAddress, input.chainId);
    const token = parseWallet(input.tokenAddress, input.chainId);
    throw new ValidationError([
      wallet.ok
        ? {
            field: 'tokenAddress',
            message: token.ok ? 'is not a token of this chain' : token.message,
          }
        : { field: 'walletAddress', message: wallet.message },
    ]);
  }
  const currency = chains.currencyByToken(network.id, id.tokenAddress);
  if (!currency) {
    throw new ValidationError([
      { field: 'tokenAddress', message: `is not a supported token on ${network.id}` },
    ]);
  }
  return { id, network, currency };
}

/** Destination ids parsed lately, per registry: a merchant sends the same few on every link. */
const parsedTargets = new WeakMap<ChainRegistry, Map<string, ResolvedTarget>>();
/** How many parsed ids are kept per registry; past it the oldest is dropped. */
const MAX_PARSED_TARGETS = 1_000;

/**
 * What a destination id names, or a 400. Parsing one verifies its checksum (a keccak256) and
 * both addresses' checksums; the answer depends only on the id and the registry, so a parsed id
 * is kept and the next link to it skips that work. Only ids that parse are kept.
 */
export function parseTarget(chains: ChainRegistry, destinationId: string): ResolvedTarget {
  let parsed = parsedTargets.get(chains);
  if (parsed === undefined) {
    parsed = new Map();
    parsedTargets.set(chains, parsed);
  }
  const kept = parsed.get(destinationId);
  if (kept !== undefined) return kept;
  const id = parseDestinationId(destinationId);
  if (id === null) throw new AppError('invalid_destination_id', INVALID_DESTINATION_ID);
  const target = resolveTarget(chains, id);
  if (parsed.size >= MAX_PARSED_TARGETS) parsed.delete(parsed.keys().next().value ?? '');
  parsed.set(destinationId, target);
  return target;
}

/**
 * resolveTarget for a signed-in wallet: the wallet comes from the session, not the body, so a
 * wallet that cannot live on the chain is reported against `chainId` and a token of the wrong
 * address family against `tokenAddress`.
 */
export function resolveWalletTarget(
  chains: ChainRegistry,
  walletAddress: string,
  input: { chainId: number; tokenAddress: string },
): ResolvedTarget {
  const network = chains.networkByChainId(input.chainId);
  if (network) {
    const family = network.kind === 'tron' ? 'Tron' : 'EVM';
    const article = network.kind === 'tron' ? 'a' : 'an';
    if (normaliseWallet(walletAddress, input.chainId) === null) {
      throw new ValidationError([
        {
          field: 'chainId',
          message: `is ${article} ${family} network; sign in with ${article} ${family} wallet to receive on it`,
        },
      ]);
    }
    if (normaliseToken(input.tokenAddress, input.chainId) === null) {
      throw new ValidationError([
        { field: 'tokenAddress', message: `must be a valid ${family} address` },
      ]);
    }
  }
  return resolveTarget(chains, { walletAddress, ...input });
}
