import { type Address, type Client, encodeFunctionData, parseAbi, parseSignature } from 'viem';
import { signTypedData } from 'viem/actions';
import type { WalletChoice } from '../../../web/eip6963.ts';
import type { EoaApprovalPermit, EvmCall } from '../calldata.ts';
import type { PayContext } from '../context.ts';
import { payingScreen } from '../screens.ts';
import { forgetSent, rememberSent } from '../sent.ts';
import { Problem } from './problems.ts';
import type { Sender } from './steps.ts';
import type { Report } from './telemetry.ts';

/**
 * A wallet whose account is a smart account (it runs EIP-5792 batches atomically) and that also
 * holds the account's owner EOA, where the tokens are. With EIP-5792 the connected account is
 * the one that executes; when it holds enough itself, the plain path (steps.ts) already pays in
 * one request, so this path is taken only when it is short and an owner it shares pays through
 * it: `/pay?wallet=<account>&eoaWallet=<owner>` answers the EIP-2612 permit for the owner to
 * sign, and the page puts `permit(...)` first and sends every call in one `wallet_sendCalls`
 * from the account. The owner signs and sends nothing. A token without permits would need a
 * transaction from the owner first: not taken here, the plain path explains the shortfall.
 */

const permitAbi = parseAbi([
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
]);

const REFUSED =
  'The network refused the transaction, so nothing was paid. Try again; if it keeps failing, contact the merchant.';

interface OwnerPath {
  readonly owner: Address;
  readonly transactions: readonly EvmCall[];
  /** Null when the owner already lets the account take its tokens. */
  readonly permit: { readonly token: Address; readonly typed: EoaApprovalPermit } | null;
}

function isEvmCall(call: unknown): call is EvmCall {
  return typeof (call as Partial<EvmCall>).to === 'string';
}

/** The first owner the wallet shares whose tokens pay the link through `account`, if any. */
async function ownerPath(
  context: PayContext,
  account: Address,
  owners: readonly Address[],
): Promise<OwnerPath | null> {
  for (const owner of owners) {
    let answer: Awaited<ReturnType<PayContext['api']['calldata']>>;
    try {
      answer = await context.api.calldata(context.token, account, owner);
    } catch {
      // Refused for this link (native currency, several requests): the plain path explains.
      continue;
    }
    if (answer.paymentType !== 'single' || answer.metadata.hasEnoughBalance === false) continue;
    const transactions = answer.transactions.filter(isEvmCall);
    if (transactions.length !== answer.transactions.length) continue;
    const { eoaApprovalRequired, eoaApproval, eoaApprovalPermit } = answer.metadata;
    if (!eoaApprovalRequired) return { owner, transactions, permit: null };
    if (!eoaApproval || !eoaApprovalPermit) continue;
    return {
      owner,
      transactions,
      permit: { token: eoaApproval.tokenAddress, typed: eoaApprovalPermit },
    };
  }
  return null;
}

async function permitCall(
  client: Client,
  owner: Address,
  permit: NonNullable<OwnerPath['permit']>,
  chainId: number,
): Promise<EvmCall> {
  const m = permit.typed.message;
  const signature = await signTypedData(client, {
    account: owner,
    domain: permit.typed.domain,
    types: {
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Permit',
    message: {
      owner: m.owner,
      spender: m.spender,
      value: BigInt(m.value),
      nonce: BigInt(m.nonce),
      deadline: BigInt(m.deadline),
    },
  });
  const { r, s, v, yParity } = parseSignature(signature);
  return {
    to: permit.token,
    value: '0x0',
    chainId,
    data: encodeFunctionData({
      abi: permitAbi,
      functionName: 'permit',
      args: [
        m.owner,
        m.spender,
        BigInt(m.value),
        BigInt(m.deadline),
        Number(v ?? BigInt(yParity + 27)),
        r,
        s,
      ],
    }),
  };
}

/**
 * Pays through the account with an owner's tokens when that is the way; null when it is not
 * (one account, no atomic batches, or the account holds enough), for the plain path to pay.
 */
export async function payThroughAccount(
  context: PayContext,
  wallet: WalletChoice,
  client: Client,
  accounts: { readonly account: Address; readonly owners: readonly Address[] },
  report: Report,
  sender: Sender,
): Promise<string[] | null> {
  const { account, owners } = accounts;
  if (owners.length === 0) return null;
  const own = await context.api.calldata(context.token, account);
  if (own.paymentType !== 'single' || own.metadata.hasEnoughBalance !== false) return null;
  if (!(await sender.atomic())) return null;
  const path = await ownerPath(context, account, owners);
  if (!path) return null;
  const action = 'Send the payment through your smart account';
  const chainId = context.network.chainId;
  const calls = [...path.transactions];
  // The owner's signature, then the account's one confirmation.
  const total = path.permit ? 2 : 1;
  if (path.permit) {
    context.show(
      payingScreen(
        1,
        total,
        action,
        `Sign in ${wallet.name}: it lets your account take the tokens.`,
      ),
    );
    calls.unshift(await permitCall(client, path.owner, path.permit, chainId));
  }
  context.show(
    payingScreen(
      total,
      total,
      action,
      `Confirm in ${wallet.name}: one confirmation covers all ${calls.length} steps.`,
    ),
  );
  report('payment_sent_to_wallet');
  const batch = await sender.all(calls);
  report('payment_approved_in_wallet', {
    payment_submission_id: batch.id,
    payment_submission_id_type: 'eip5792_calls_id',
  });
  rememberSent(context.token, []);
  context.show(payingScreen(total, total, action, 'Sent. Waiting for the network to include it…'));
  const outcome = await batch.outcome();
  if (outcome.ok) return [...outcome.hashes];
  forgetSent(context.token);
  throw new Problem(REFUSED);
}
