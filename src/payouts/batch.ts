import type { Static } from 'typebox';
import { toHex } from 'viem';
import { AppError, type FieldError, ValidationError } from '../base/errors.ts';
import { isNative } from '../chains/currencies.ts';
import { formatAmount } from '../payments/amounts.ts';
import { buildBatchCalldata, checkBatchNetworks } from '../payments/calldata/batch.ts';
import { checkPayer } from '../payments/payer.ts';
import type { EvmTransaction } from '../payments/transactions.ts';
import { refuseCommerceRequests } from '../requests/commerce-guard.ts';
import { prepareRequest, type RequestCaller } from '../requests/create.ts';
import { amountDue, requestLeg } from '../requests/legs.ts';
import { feeUnits, platformFee } from '../requests/pay.ts';
import {
  findRequests,
  insertRequests,
  type NewRequest,
  type RequestRow,
  unlessFailing,
} from '../requests/requests.ts';
import { requestUnits } from '../requests/units.ts';
import type { PayoutDeps } from './create.ts';
import type { BatchPayoutBody } from './schemas.ts';

export type BatchPayoutInput = Static<typeof BatchPayoutBody>;

export const REQUESTS_XOR_IDS_MESSAGE = 'Send either requests or requestIds, not both';
export const NO_REQUESTS_MESSAGE = 'requests or requestIds is required';

/**
 * `POST /v2/payouts/batch`: several requests paid from one wallet in one transaction on one
 * EVM network: new ones (`requests`, written only once every item is valid) or existing ones
 * of the caller (`requestIds`, each for what is still due). Answers the approvals of the batch
 * contract (one per token whose allowance is short) and the one `batchPayments` transaction,
 * under the spec's name `batchPaymentTransaction` and also under the name the reference's
 * schema gives it (`ERC20BatchPaymentTransaction`, or `ETHBatchPaymentTransaction` when the
 * batch pays only the native currency): one transaction, never two, so a client that sends
 * whichever it finds pays once. `requests` says what each request of the batch is (0.31.0's
 * field), `requestIds` their ids.
 */
export async function createBatchPayout(
  deps: PayoutDeps,
  caller: RequestCaller,
  body: BatchPayoutInput,
) {
  if (body.requests !== undefined && body.requestIds !== undefined)
    throw new ValidationError([{ field: 'requestIds', message: REQUESTS_XOR_IDS_MESSAGE }]);
  const batch = body.requests
    ? fresh(deps, await prepareItems(deps, caller, body.requests))
    : known(await existing(deps, caller, body.requestIds));
  const networks = batch.items.map((item) => item.network);
  checkBatchNetworks(networks, { tronAlone: true });
  const network = deps.chains.network(networks[0] ?? '');
  if (!network) throw new Error('a checked request has no network');
  const payer = checkPayer(network, { wallet: body.payer });
  const fees = batch.items.map((_, index) => feeOf(network.chainId, body, index));
  // Every fee is checked before anything is written. A fiat request's is counted in its
  // conversion's 8 decimals (`feeUnits`), as its calldata carries it.
  const feeOn = (item: Pick<RequestRow, 'invoiceCurrency' | 'paymentCurrency'>, due: bigint) =>
    feeUnits(deps.chains, item).scale(due);
  for (const [index, item] of batch.items.entries()) fees[index]?.(feeOn(item, item.due));

  const requests = await batch.write();
  // New requests are deleted again if the calldata cannot be built (a chain that cannot be
  // read): the client never learnt their ids, and a retry would leave twins.
  const { legs, calldata } = await unlessFailing(deps.db, batch.fresh ? requests : [], async () => {
    const legs = requests.map((row, index) => {
      const due = amountDue(row);
      return requestLeg(deps.chains, row, due, fees[index]?.(feeOn(row, due)) ?? undefined);
    });
    return { legs, calldata: await buildBatchCalldata(deps, legs, payer) };
  });
  const transaction = referenceTransaction(calldata.batchPaymentTransaction);
  const onlyNative = legs.every((leg) => isNative(leg.currency));
  const { insufficientTokens, spending, conversions, ...metadata } = calldata.metadata;
  return {
    ERC20ApprovalTransactions: calldata.ERC20ApprovalTransactions.map((tx) => ({
      data: tx.data,
      to: tx.to,
      value: 0,
    })),
    batchPaymentTransaction: transaction,
    ...(onlyNative
      ? { ETHBatchPaymentTransaction: transaction }
      : { ERC20BatchPaymentTransaction: transaction }),
    requestIds: requests.map((row) => row.requestId),
    requests: requests.map((row) => ({
      requestId: row.requestId,
      paymentReference: `0x${row.paymentReference}`,
      payee: row.payee,
      amount: formatAmount(row.expectedAmount, requestUnits(deps.chains, row).decimals),
      invoiceCurrency: row.invoiceCurrency,
      paymentCurrency: row.paymentCurrency,
    })),
    metadata: {
      ...metadata,
      insufficientTokens: [...insufficientTokens],
      spending: [...spending],
      ...(conversions && { conversions: [...conversions] }),
    },
  };
}

/** A fee field as sent: request-commerce sends an empty string for none. */
const sent = (value: string | undefined) => (value === '' ? undefined : value);

/**
 * The platform fee of the batch's `index`th request, by its amount: the item's own fee fields
 * when it sends either (request-commerce sends them in each item), else the body's; an empty
 * string is no value. Refusals name the item's field when the fee is the item's.
 */
function feeOf(chainId: number, body: BatchPayoutInput, index: number) {
  const item = body.requests?.[index];
  const own = {
    percentage: sent(item?.feePercentage),
    address: sent(item?.feeAddress),
  };
  const useOwn = own.percentage !== undefined || own.address !== undefined;
  const { percentage, address } = useOwn
    ? own
    : { percentage: sent(body.feePercentage), address: sent(body.feeAddress) };
  return (amount: bigint) => {
    try {
      return platformFee(chainId, amount, percentage, address);
    } catch (error) {
      if (!useOwn || !(error instanceof ValidationError)) throw error;
      throw new ValidationError(
        (error.errors ?? []).map((e) => ({ ...e, field: `requests[${index}].${e.field}` })),
      );
    }
  };
}

/** The requests a batch pays, before they are known to be written. */
interface Batch {
  readonly items: readonly {
    readonly network: string;
    readonly due: bigint;
    readonly invoiceCurrency: string;
    readonly paymentCurrency: string;
  }[];
  /** Whether `write` inserts the requests (or returns existing ones). */
  readonly fresh: boolean;
  write(): Promise<RequestRow[]>;
}

function fresh(deps: PayoutDeps, prepared: readonly NewRequest[]): Batch {
  return {
    items: prepared.map((item) => ({
      network: item.network.id,
      due: item.expectedAmount,
      invoiceCurrency: item.invoiceCurrency.id,
      paymentCurrency: item.paymentCurrency.id,
    })),
    fresh: true,
    write: () => insertRequests(deps.db, prepared),
  };
}

function known(rows: RequestRow[]): Batch {
  return {
    items: rows.map((row) => ({ ...row, due: amountDue(row) })),
    fresh: false,
    write: async () => rows,
  };
}

/** New requests, every item checked (its errors named by index) before any is written. */
async function prepareItems(
  deps: PayoutDeps,
  caller: RequestCaller,
  items: NonNullable<BatchPayoutInput['requests']>,
): Promise<NewRequest[]> {
  const prepared: NewRequest[] = [];
  const errors: FieldError[] = [];
  for (const [index, item] of items.entries()) {
    try {
      prepared.push({ ...(await prepareRequest(deps, caller, item)), payout: true });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(
        ...(error.errors ?? []).map((e) => ({
          field: `requests[${index}].${e.field}`,
          message: e.message,
        })),
      );
    }
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return prepared;
}

/** The caller's requests, each once, none paid in full. */
async function existing(
  deps: PayoutDeps,
  caller: RequestCaller,
  ids: readonly string[] | undefined,
): Promise<RequestRow[]> {
  if (ids === undefined)
    throw new ValidationError([{ field: 'requests', message: NO_REQUESTS_MESSAGE }]);
  const wanted = ids.map((id) => id.toLowerCase());
  const duplicate = wanted.find((id, i) => wanted.indexOf(id) !== i);
  if (duplicate)
    throw new ValidationError([{ field: 'requestIds', message: `lists ${duplicate} twice` }]);
  const found = new Map(
    (await findRequests(deps.db, caller.accountId, wanted)).map((row) => [row.requestId, row]),
  );
  const rows: RequestRow[] = [];
  for (const id of wanted) {
    const row = found.get(id);
    if (!row) throw new AppError('request_not_found', `Request ${id} not found`);
    if (amountDue(row) === 0n)
      throw new AppError('request_paid', `Request ${id} has already been paid`);
    rows.push(row);
  }
  await refuseCommerceRequests(deps.db, rows);
  return rows;
}

/** `{data, to, value: {type: 'BigNumber', hex}}`, as the reference answers transactions. */
function referenceTransaction(tx: EvmTransaction) {
  return {
    data: tx.data,
    to: tx.to,
    value: { type: 'BigNumber' as const, hex: toHex(BigInt(tx.value)) },
  };
}
