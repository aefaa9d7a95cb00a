import type { Clock } from '../base/clock.ts';
import { AppError, ValidationError } from '../base/errors.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { type PayableFees, payableFees } from '../fees/bundle.ts';
import { feeLegsOf } from '../fees/legs.ts';
import type { LinkScope } from '../http/principal.ts';
import { buildBatchCalldata } from '../payments/calldata/batch.ts';
import type { BatchCalldata } from '../payments/calldata/batch-calldata.ts';
import type { SingleCalldata } from '../payments/calldata/shared.ts';
import { buildSingleCalldata } from '../payments/calldata/single.ts';
import { checkPayer, type Payer } from '../payments/payer.ts';
import { safeBatchAnswer, safeSingleAnswer } from '../payments/safe/safe-answers.ts';
import {
  type PayerSafe,
  readPayerSafe,
  safePaymentDeadline,
} from '../payments/safe/safe-transaction.ts';
import type { PaymentLeg, PaymentTransaction } from '../payments/transactions.ts';
import { checkLinkPayer, type GatedLink } from '../screening/gate.ts';
import type { ScreeningService } from '../screening/screen.ts';
import {
  assertCrossChainPayable,
  assertNotTron,
  assertOneLeg,
  type CrossChainDeps,
  type CrossChainQuery,
  linkCrossChainCalldata,
} from './link-crosschain.ts';
import { assertPayable, completedError, type Link, linkLegs, loadLink } from './links.ts';
import type { ParentLinks } from './parent-links.ts';
import { type RememberedSafeTx, rememberSafeTransaction } from './safe-prepared.ts';

export const PAYOUT_WALLET_MESSAGE =
  'Only the wallet that created this payout (creatorWalletAddress) can pay it';

export interface CalldataQuery {
  readonly wallet?: string | undefined;
  readonly eoaWallet?: string | undefined;
  readonly isSafe?: 'true' | 'false' | undefined;
  readonly chain?: string | undefined;
  readonly token?: string | undefined;
}

export interface CalldataDeps extends CrossChainDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  /** A multicall parent's calldata. */
  readonly parents: ParentLinks;
  /** Screens the payers of links that ask for it (src/screening/). */
  readonly screening: ScreeningService;
  /** Called once an event was queued (a refused or screened payer), so that it goes out at once. */
  readonly wakeDispatcher?: (() => void) | undefined;
}

/** The link as the payer check reads it. */
export function gatedLink(link: Link): GatedLink {
  return {
    id: link.row.id,
    token: link.row.token,
    accountId: link.row.accountId,
    clientIdId: link.row.clientIdId,
    requestId: link.requests[0]?.requestId ?? '',
    network: link.row.network,
    screening: link.row.screening,
  };
}

/**
 * The payer inputs every token-scoped read takes (the reference's `wallet`, `chain`, `token`,
 * `eoaWallet`, `isSafe`), checked the same way everywhere: chain and token come together,
 * isSafe names the multisig as `wallet` and excludes `eoaWallet`, and a Tron link is refused a
 * chain and token (no route pays one). Wallets are checked against the link's network.
 */
export function checkPayerInputs(link: Link, query: CalldataQuery): Payer {
  if ((query.chain === undefined) !== (query.token === undefined)) {
    throw new ValidationError([
      {
        field: query.chain === undefined ? 'chain' : 'token',
        message: 'chain and token must be sent together',
      },
    ]);
  }
  if (query.isSafe === 'true') {
    if (query.eoaWallet !== undefined) {
      throw new ValidationError([
        { field: 'eoaWallet', message: 'cannot be combined with isSafe=true' },
      ]);
    }
    if (query.wallet === undefined) {
      throw new ValidationError([
        { field: 'wallet', message: 'is required with isSafe=true (the multisig address)' },
      ]);
    }
  }
  if (query.chain !== undefined) assertNotTron(link);
  const network = link.row.network === 'tron' ? 'tron' : 'evm';
  if (network === 'tron' && query.isSafe === 'true') {
    throw new AppError('safe_not_supported', 'Multisig (Safe) payments are not supported on Tron');
  }
  return checkPayer({ kind: network }, query);
}

/**
 * A payout link is paid by the wallet that created it and no other: its request names that
 * wallet as payer. Without a wallet the calldata is the same for anyone and names no payer.
 */
export function assertPayoutWallet(link: Link, payer: Payer): void {
  const creator = link.row.creatorWallet;
  if (!link.row.payout || creator === null || payer.wallet === undefined) return;
  if (payer.wallet.toLowerCase() !== creator.toLowerCase()) {
    throw new AppError('payout_wallet_mismatch', PAYOUT_WALLET_MESSAGE);
  }
}

/** A one-request link's calldata, with what 0.31.0 adds to it. */
interface LinkSingleCalldata extends Omit<SingleCalldata, 'transactions'> {
  readonly transactions: readonly (PaymentTransaction & { readonly chainType: 'evm' | 'tron' })[];
  readonly paymentReference: string;
  readonly flow: 'incoming' | 'outgoing';
}

/** Same inputs for `GET /{token}/pay` (query) and `POST /{token}/calldata` (body). */
export async function linkCalldata(
  deps: CalldataDeps,
  scope: LinkScope,
  token: string,
  query: CalldataQuery,
): Promise<LinkSingleCalldata | BatchCalldata | object> {
  const link = await loadLink(deps.db, deps.clock, scope, token);
  await assertPayable(deps, link);
  const payer = checkPayerInputs(link, query);
  const crossChain = crossChainOf(query);
  if (crossChain) assertCrossChainPayable(payer, query.isSafe === 'true');
  assertPayoutWallet(link, payer);
  // Before anything is built: a refused payer gets no calldata.
  await checkLinkPayer(deps, gatedLink(link), payer);
  const now = deps.clock.now();
  const safe = query.isSafe === 'true' ? await payerSafe(deps, link, payer) : null;
  if (link.children) {
    const answer = await deps.parents.calldata(link, payer, now, safe, crossChain);
    const safeTx = safe && safeTransactionOf(answer);
    if (safeTx) await rememberSafeTransaction(deps.db, link.row, safeTx);
    return answer;
  }
  const legs = linkLegs(deps.chains, link, now);
  const [first] = legs;
  // Every request paid, the link not yet marked so: answer as for a completed link.
  if (!first) throw await completedError(deps, link);
  if (crossChain) assertOneLeg(legs);
  if (legs.length > 1) {
    const batch = await buildBatchCalldata(deps, legs, payer);
    if (!safe) return batch;
    const answer = safeBatchAnswer(safe, batch);
    await rememberSafeTransaction(deps.db, link.row, { ...answer.safeTransaction });
    return answer;
  }
  const fees = await linkFees(deps.db, link, first);
  const bridged =
    crossChain && (await linkCrossChainCalldata(deps, link, first, payer, crossChain, fees));
  if (bridged) return linkSingle(bridged, fees, link, first);
  const built = await buildSingleCalldata(deps, first, payer, fees?.calls);
  const answer = linkSingle(built, fees, link, first);
  if (!safe) return answer;
  const safeAnswer = safeSingleAnswer(safe, answer);
  await rememberSafeTransaction(deps.db, link.row, { ...safeAnswer.safeTransaction });
  return safeAnswer;
}

/** A single answer as a link gives it: its fee legs described, its reference and its flow. */
function linkSingle<
  T extends {
    readonly transactions: readonly PaymentTransaction[];
    readonly metadata: object;
    readonly feeBundle: SingleCalldata['feeBundle'];
  },
>(built: T, fees: PayableFees | undefined, link: Link, first: PaymentLeg) {
  const calldata =
    fees === undefined
      ? built
      : {
          ...built,
          feeBundle: fees.feeBundle,
          metadata: { ...built.metadata, ...fees.rates },
        };
  return {
    ...calldata,
    transactions: calldata.transactions.map((tx) => ({
      ...tx,
      chainType: 'type' in tx ? ('tron' as const) : ('evm' as const),
    })),
    paymentReference: `0x${first.paymentReference}`,
    // A payout link's creator pays out; anyone else pays the link's payee.
    flow: link.row.payout ? ('outgoing' as const) : ('incoming' as const),
  };
}

/** The source chain and token of a cross-chain payment; null without them. */
function crossChainOf(query: CalldataQuery): CrossChainQuery | null {
  return query.chain !== undefined && query.token !== undefined
    ? { chain: query.chain, token: query.token }
    : null;
}

/**
 * With isSafe=true, the Safe named as `wallet`, read before anything is built: a wallet that is
 * no Safe is refused at once. The link's calls are then built for it as for any wallet, and
 * packed into one Safe transaction (src/payments/safe/).
 */
async function payerSafe(deps: CalldataDeps, link: Link, payer: Payer): Promise<PayerSafe> {
  const network = deps.chains.network(link.row.network);
  if (!network || !payer.wallet) throw new Error('a Safe payer needs its wallet and network');
  return readPayerSafe(deps, network, payer.wallet, safePaymentDeadline(link.row.expiresAt));
}

/** The Safe transaction in a parent's answer (its feature builds it; this one remembers it). */
function safeTransactionOf(answer: object): RememberedSafeTx | null {
  if (!('safeTransaction' in answer)) return null;
  const safeTx: unknown = answer.safeTransaction;
  if (typeof safeTx !== 'object' || safeTx === null) return null;
  const fields = safeTx as Partial<Record<string, unknown>>;
  const { safeTxHash, safeAddress, nonce } = fields;
  return typeof safeTxHash === 'string' &&
    typeof safeAddress === 'string' &&
    typeof nonce === 'string'
    ? { ...fields, safeTxHash, safeAddress, nonce }
    : null;
}

/** The fee legs a link's payment carries (its captured plan's), or undefined without any. */
export async function linkFees(
  db: Database,
  link: Link,
  leg: PaymentLeg,
): Promise<PayableFees | undefined> {
  const plan = link.row.feePlan;
  const request = link.requests.find((row) => row.requestId === leg.requestId);
  // A plan without fees (a client ID's plan may name none) has no legs to read.
  if (!plan?.fees.length || !request) return undefined;
  const legs = (await feeLegsOf(db, [request.id])).get(request.id) ?? [];
  if (legs.length === 0) return undefined;
  return payableFees(plan, legs, {
    bundleId: request.id,
    currency: leg.currency,
    network: leg.network,
    grossAmount: request.expectedAmount,
  });
}
