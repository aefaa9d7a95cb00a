import {
  type Address,
  decodeEventLog,
  getAbiItem,
  getAddress,
  type Hex,
  hexToBigInt,
  parseAbi,
  toEventSelector,
} from 'viem';
import { safeAbi } from '../payments/safe/abi.ts';

/**
 * Who paid, read from the payment transaction's receipt. The transaction's sender paid, unless
 * the tokens that reached the payee left another account: a contract wallet (a smart account,
 * a Safe) that the sender drove. That account is then `payerAddress`, and `payerEoaAddress` is
 * the EOA behind it, where the receipt tells:
 *
 * - an account that took the token from an EOA in the same transaction, before paying (the
 *   smart-account path's `transferFrom(EOA → account)`, after a permit or an approval): that
 *   EOA (a contract that sent it tokens, a pool it swapped with, is nobody's wallet);
 * - an ERC-4337 user operation (the EntryPoint's `UserOperationEvent` names the account): the
 *   sender is a bundler, nobody's wallet, so null;
 * - otherwise the sender, the EOA that sent the account's call (a Safe's executing owner).
 *
 * - a bridge's fill: Across's SpokePool delivered the token earlier in the same transaction
 *   (its `FilledV3Relay`, whose message's calls made the payment), so the payer is the
 *   deposit's `depositor` on the origin chain, for both: the relayer that sent the fill is
 *   nobody's wallet.
 *
 * The payee's transfer is the token's `Transfer(from, payee, amount)` before the proxy's event;
 * when it came out of one of our own contracts (the batch contract pulls the whole batch first,
 * then pays through the proxy), the payer is whoever sent the tokens into it.
 */

export interface Payers {
  readonly payerAddress: string | null;
  readonly payerEoaAddress: string | null;
  /**
   * Set when a bridge's fill delivered what paid: the payment is cross-chain, its deposit made
   * on the fill's origin chain (the fill names the chain and the deposit id, not the deposit's
   * transaction).
   */
  readonly bridgedFrom?: { readonly originChainId: number };
}

export interface ReceiptLog {
  readonly address: string;
  readonly topics: readonly Hex[];
  readonly data: Hex;
  readonly logIndex: number;
}

/** keccak256("Transfer(address,address,uint256)"). */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** keccak256("UserOperationEvent(bytes32,address,address,uint256,bool,uint256,uint256)"). */
const USER_OPERATION_TOPIC = '0x49628fd1471006c1482da88028e9ce4dbb080b815c9b0344d39e5a8e6ec1419f';

/** keccak256("ExecutionSuccess(bytes32,uint256)"): a Safe's execution ended well. */
const SAFE_EXECUTED_TOPIC = toEventSelector(getAbiItem({ abi: safeAbi, name: 'ExecutionSuccess' }));

/**
 * The Safe whose execution made the payment at `logIndex`: a Safe emits ExecutionSuccess when
 * its execution ends, after every log of the calls it made, so the first one after the
 * payment's log is the innermost Safe execution around it (a Safe owned by a Safe ends inside
 * its owner's). A payment followed, in the same transaction, by a Safe execution that did not
 * make it would be credited to that Safe; no wallet or relayer we know of sends such a
 * transaction.
 */
function safeExecutionAfter(view: ReceiptView, logIndex: number): Address | null {
  return view.safeEnds.find((end) => end.logIndex > logIndex)?.address ?? null;
}

/** Across V3's fill event (contracts.md; our local SpokePool emits the same). */
const ACROSS_FILL_ABI = parseAbi([
  'event FilledV3Relay(address inputToken, address outputToken, uint256 inputAmount, uint256 outputAmount, uint256 repaymentChainId, uint256 indexed originChainId, uint32 indexed depositId, uint32 fillDeadline, uint32 exclusivityDeadline, address exclusiveRelayer, address indexed relayer, address depositor, address recipient, bytes message, (address updatedRecipient, bytes updatedMessage, uint256 updatedOutputAmount, uint8 fillType) relayExecutionInfo)',
]);
const ACROSS_FILL_TOPIC = toEventSelector(
  getAbiItem({ abi: ACROSS_FILL_ABI, name: 'FilledV3Relay' }),
);

/** A log with the fill's topic that is no Across fill (another contract's) is none. */
function decodedFill(data: Hex, topics: [Hex, ...Hex[]]) {
  try {
    return decodeEventLog({ abi: ACROSS_FILL_ABI, data, topics }).args;
  } catch {
    return null;
  }
}

/**
 * The Across fill that, earlier in the same transaction, delivered the token a payment then
 * paid (its depositor and origin chain): the fill hands its recipient (a handler) the tokens
 * and the message whose calls make the payment.
 */
function bridgeFillOf(
  view: ReceiptView,
  token: string,
  paymentLogIndex: number,
): { readonly depositor: Address; readonly originChainId: number } | null {
  const fill = view.fills.find(
    (f) => f.logIndex < paymentLogIndex && f.outputToken === token.toLowerCase(),
  );
  return fill ? { depositor: fill.depositor, originChainId: fill.originChainId } : null;
}

interface Transfer {
  readonly from: Address;
  readonly to: Address;
  readonly value: bigint;
  readonly logIndex: number;
}

const topicAddress = (topic: Hex | undefined): Address | null =>
  topic && topic.length === 66 ? getAddress(`0x${topic.slice(26)}`) : null;

/**
 * What `payersOf` reads of a receipt, read once per receipt: a batch's receipt is asked again
 * for each of its payments (hundreds), and each would otherwise walk and decode all its logs.
 * Every list is in log order.
 */
interface ReceiptView {
  /** The token's `Transfer`s, by token address lower-cased. */
  readonly transfers: ReadonlyMap<string, readonly Transfer[]>;
  /** Where Safe executions ended (`ExecutionSuccess`) and which Safe's. */
  readonly safeEnds: readonly { readonly logIndex: number; readonly address: Address }[];
  /** Across fills, their output token lower-cased. */
  readonly fills: readonly {
    readonly logIndex: number;
    readonly outputToken: string;
    readonly depositor: Address;
    readonly originChainId: number;
  }[];
  /** Accounts an ERC-4337 `UserOperationEvent` names. */
  readonly userOperationAccounts: ReadonlySet<Address>;
}

const views = new WeakMap<readonly ReceiptLog[], ReceiptView>();

function receiptView(logs: readonly ReceiptLog[]): ReceiptView {
  const known = views.get(logs);
  if (known) return known;
  const transfers = new Map<string, Transfer[]>();
  const safeEnds: { logIndex: number; address: Address }[] = [];
  const fills: ReceiptView['fills'][number][] = [];
  const userOperationAccounts = new Set<Address>();
  for (const log of [...logs].sort((a, b) => a.logIndex - b.logIndex)) {
    const topic = log.topics[0]?.toLowerCase();
    if (topic === TRANSFER_TOPIC) {
      const from = topicAddress(log.topics[1]);
      const to = topicAddress(log.topics[2]);
      if (!from || !to || log.topics.length !== 3 || log.data.length !== 66) continue;
      const token = log.address.toLowerCase();
      const transfer = { from, to, value: hexToBigInt(log.data), logIndex: log.logIndex };
      const list = transfers.get(token);
      if (list) list.push(transfer);
      else transfers.set(token, [transfer]);
    } else if (topic === SAFE_EXECUTED_TOPIC) {
      safeEnds.push({ logIndex: log.logIndex, address: getAddress(log.address) });
    } else if (topic === ACROSS_FILL_TOPIC) {
      const [signature, ...rest] = log.topics;
      const fill = signature ? decodedFill(log.data, [signature, ...rest]) : null;
      if (fill)
        fills.push({
          logIndex: log.logIndex,
          outputToken: fill.outputToken.toLowerCase(),
          depositor: getAddress(fill.depositor),
          originChainId: Number(fill.originChainId),
        });
    } else if (topic === USER_OPERATION_TOPIC) {
      const account = topicAddress(log.topics[2]);
      if (account) userOperationAccounts.add(account);
    }
  }
  const view = { transfers, safeEnds, fills, userOperationAccounts };
  views.set(logs, view);
  return view;
}

/** The latest transfer before `logIndex` that `match` accepts. */
function latestBefore(
  transfers: readonly Transfer[],
  logIndex: number,
  match: (transfer: Transfer) => boolean,
): Transfer | undefined {
  return transfers.filter((t) => t.logIndex < logIndex && match(t)).at(-1);
}

export async function payersOf(
  receipt: { readonly from: string; readonly logs: readonly ReceiptLog[] },
  payment: {
    readonly tokenAddress: string | null;
    readonly payee: string;
    readonly amount: bigint;
    readonly logIndex: number;
  },
  chain: {
    /** Our contracts that pass a payer's tokens on (the batch contract), lower-cased. */
    readonly intermediaries: ReadonlySet<string>;
    /** Whether an address is an externally owned account (asked only of a funder). */
    readonly isEoa: (address: Address) => Promise<boolean>;
  },
): Promise<Payers> {
  const sender = getAddress(receipt.from);
  const view = receiptView(receipt.logs);
  // A Safe's execution that made the payment: the Safe paid (whatever the token logs, ether
  // included), its executing owner sent it.
  const safe = safeExecutionAfter(view, payment.logIndex);
  if (safe !== null) return { payerAddress: safe, payerEoaAddress: sender };
  const plain = { payerAddress: sender, payerEoaAddress: sender };
  if (payment.tokenAddress === null) return plain;
  const fill = bridgeFillOf(view, payment.tokenAddress, payment.logIndex);
  if (fill !== null) {
    return {
      payerAddress: fill.depositor,
      payerEoaAddress: fill.depositor,
      bridgedFrom: { originChainId: fill.originChainId },
    };
  }
  const transfers = view.transfers.get(payment.tokenAddress.toLowerCase()) ?? [];
  const payee = payment.payee.toLowerCase();
  let paid = latestBefore(
    transfers,
    payment.logIndex,
    (t) => t.to.toLowerCase() === payee && t.value === payment.amount,
  );
  if (paid && chain.intermediaries.has(paid.from.toLowerCase())) {
    const through = paid.from.toLowerCase();
    paid = latestBefore(transfers, paid.logIndex, (t) => t.to.toLowerCase() === through);
  }
  if (!paid || paid.from === sender) return plain;
  const account = paid.from;
  const funded = latestBefore(
    transfers,
    paid.logIndex,
    (t) => t.to === account && t.from !== account,
  );
  if (funded && (await chain.isEoa(funded.from))) {
    return { payerAddress: account, payerEoaAddress: funded.from };
  }
  const userOperation = view.userOperationAccounts.has(account);
  return { payerAddress: account, payerEoaAddress: userOperation ? null : sender };
}
