import { type Address, getAddress, maxUint256, type PublicClient, parseAbi } from 'viem';
import { AppError } from '../../base/errors.ts';
import { isNative } from '../../chains/currencies.ts';
import { erc20Abi } from '../abis.ts';
import { formatAmount, parseAmount } from '../amounts.ts';
import { type Payer, SMART_ACCOUNT_TRON_MESSAGE, smartAccountOf } from '../payer.ts';
import { readPayerState } from '../payer-state.ts';
import {
  PERMIT_TYPES,
  type PermitDomain,
  permitDomainOf,
  tokenPermitAbi,
} from '../permit-support.ts';
import { evmTransaction, type PaymentLeg } from '../transactions.ts';
import { buildConversionCalldata, isConversionLeg } from './conversion.ts';
import type { EoaApproval, EoaApprovalPermit } from './eoa-approval.ts';
import { buildErc20Calldata } from './erc20.ts';
import {
  type CalldataDeps,
  type FeeLegCall,
  multicallOf,
  RESETS_ALLOWANCE,
  type SingleCalldata,
  withFeeLegs,
} from './shared.ts';

/**
 * A smart account (`wallet`) paying with its owner EOA's tokens (`eoaWallet`), in one atomic
 * execution of `transactions` by the account: `transferFrom(EOA → account)` of what the payment
 * takes, then what the EOA itself would have sent (the proxy's approval when short, the
 * payment, the fee legs). The EOA must first let the account take its tokens: by signing the
 * EIP-2612 permit in `metadata.eoaApprovalPermit` when the token takes permits (the client
 * puts `permit(owner, spender, value, deadline, v, r, s)` first in the same execution; the EOA
 * sends nothing), else by sending `eoaApprovalTransactions`. Balances are the EOA's; the
 * native currency, which no approval moves, is refused.
 */

/** How long a permit stays good, counted from the chain's latest block (what `permit` checks). */
const PERMIT_WINDOW_SECONDS = 3_600n;

const SMART_ACCOUNT_NATIVE_MESSAGE =
  'Smart-account payments (eoaWallet) cannot pay in the native currency; pay from the wallet that holds it, without eoaWallet';

const transferFromAbi = parseAbi([
  'function transferFrom(address from, address to, uint256 amount) returns (bool)',
]);
const blockTimestampAbi = parseAbi([
  'function getCurrentBlockTimestamp() view returns (uint256 timestamp)',
]);

/** The EOA's side, as the chain has it. */
export interface EoaState {
  /** What the EOA already lets the smart account take. */
  readonly allowance: bigint;
  /** The token's permit domain and the EOA's next permit nonce; null without EIP-2612. */
  readonly permit: { readonly domain: PermitDomain; readonly nonce: bigint } | null;
  /** The latest block's, Unix seconds. */
  readonly blockTimestamp: bigint;
}

export async function buildSmartAccountCalldata(
  deps: CalldataDeps,
  leg: PaymentLeg,
  payer: Payer,
  fees: readonly FeeLegCall[] = [],
): Promise<SingleCalldata> {
  const accounts = smartAccountOf(payer);
  if (!accounts) throw new Error('a smart-account payer names a wallet and another eoaWallet');
  if (leg.network.kind !== 'evm') {
    throw new AppError('smart_account_unsupported', SMART_ACCOUNT_TRON_MESSAGE);
  }
  if (isNative(leg.currency)) {
    throw new AppError('smart_account_native_unsupported', SMART_ACCOUNT_NATIVE_MESSAGE);
  }
  // With both wallets, the builders read the EOA's balance and the account's allowance.
  let built: SingleCalldata;
  let pull: bigint;
  if (isConversionLeg(leg)) {
    const conversion = await buildConversionCalldata(deps, leg, payer);
    // The proxy may take up to maxToSpend; what it leaves stays in the account.
    const max = parseAmount(conversion.metadata.maxToSpend, leg.currency.decimals);
    if (!max.ok) throw new Error(`maxToSpend ${conversion.metadata.maxToSpend}: ${max.message}`);
    built = conversion;
    pull = max.value;
  } else {
    built = await buildErc20Calldata(deps, leg, payer, fees);
    pull = withFeeLegs(leg.amount + leg.feeAmount, fees);
  }
  const eoa = await deps.clients.read(leg.network.id, (client) =>
    readEoaState(client, multicallOf(deps, leg.network), {
      token: getAddress(leg.currency.address),
      ...accounts,
    }),
  );
  return smartAccountCalldata(built, { leg, ...accounts, pull, eoa });
}

/** The EOA's allowance of the account and, for a permit token, its nonce, in one read. */
async function readEoaState(
  client: PublicClient,
  multicall3: Address,
  query: { readonly token: Address; readonly owner: Address; readonly account: Address },
): Promise<EoaState> {
  const domain = await permitDomainOf(client, multicall3, query.token);
  const state = await readPayerState(client, multicall3, {
    funder: query.owner,
    owner: query.owner,
    tokens: [{ token: query.token, spender: query.account }],
    extra: [
      { address: multicall3, abi: blockTimestampAbi, functionName: 'getCurrentBlockTimestamp' },
      ...(domain
        ? [
            {
              address: query.token,
              abi: tokenPermitAbi,
              functionName: 'nonces',
              args: [query.owner],
            },
          ]
        : []),
    ],
  });
  const [blockTimestamp, nonce] = state.extra as [bigint, bigint | undefined];
  return {
    allowance: state.tokens.get(query.token.toLowerCase())?.allowance ?? 0n,
    permit: domain && nonce !== undefined ? { domain, nonce } : null,
    blockTimestamp,
  };
}

/**
 * The part that reads nothing: a payment `built` for the account, with the pull from the EOA
 * put first and the EOA's approval (as a permit to sign, or as a transaction) when short.
 */
export function smartAccountCalldata(
  built: SingleCalldata,
  facts: {
    readonly leg: PaymentLeg;
    readonly account: Address;
    readonly owner: Address;
    /** Base units the account takes from the EOA. */
    readonly pull: bigint;
    readonly eoa: EoaState;
  },
): SingleCalldata {
  const { leg, account, owner, pull, eoa } = facts;
  const chainId = leg.network.chainId;
  const token = getAddress(leg.currency.address);
  const transferIn = evmTransaction(
    token,
    transferFromAbi,
    'transferFrom',
    [owner, account, pull],
    chainId,
  );
  const required = eoa.allowance < pull;
  const approval: EoaApproval = {
    owner,
    spender: account,
    tokenAddress: token,
    currency: leg.currency.id,
    amount: formatAmount(pull, leg.currency.decimals),
    approvalType: 'unlimited',
  };
  const approve = (value: bigint) =>
    evmTransaction(token, erc20Abi, 'approve', [account, value], chainId);
  const eoaApprovalTransactions =
    !required || eoa.permit
      ? []
      : [
          ...(eoa.allowance > 0n && RESETS_ALLOWANCE.has(leg.currency.id) ? [approve(0n)] : []),
          approve(maxUint256),
        ];
  const m = built.metadata;
  return {
    ...built,
    transactions: [transferIn, ...built.transactions],
    eoaApprovalTransactions,
    metadata: {
      ...m,
      stepsRequired: m.stepsRequired + 1,
      ...(m.approvalTransactionIndex !== undefined && {
        approvalTransactionIndex: m.approvalTransactionIndex + 1,
      }),
      paymentTransactionIndex: m.paymentTransactionIndex + 1,
      eoaApprovalRequired: required,
      ...(required && { eoaApproval: approval }),
      ...(required &&
        eoa.permit && {
          eoaApprovalPermit: permitTypedData(eoa.permit, owner, account, eoa.blockTimestamp),
        }),
    },
  };
}

function permitTypedData(
  permit: NonNullable<EoaState['permit']>,
  owner: Address,
  spender: Address,
  blockTimestamp: bigint,
): EoaApprovalPermit {
  return {
    domain: permit.domain,
    types: PERMIT_TYPES,
    primaryType: 'Permit',
    message: {
      owner,
      spender,
      value: maxUint256.toString(),
      nonce: permit.nonce.toString(),
      deadline: (blockTimestamp + PERMIT_WINDOW_SECONDS).toString(),
    },
  };
}
