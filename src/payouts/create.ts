import type { Clock } from '../base/clock.ts';
import { ValidationError } from '../base/errors.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { prepareRequest, type RequestCaller } from '../requests/create.ts';
import { type ClientFee, platformFee, requestCalldata } from '../requests/pay.ts';
import { writeRequest } from '../requests/request-group.ts';
import { unlessFailing } from '../requests/requests.ts';
import { createRecurringPayout } from './recurring/create.ts';
import type { PayoutInput } from './schemas.ts';

export interface PayoutDeps {
  readonly db: Database;
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  readonly clock: Clock;
  /** PAY_URL: a recurring payout's answer carries the page where its payer signs. */
  readonly payUrl: string;
}

/**
 * `POST /v2/payouts`: a request from the caller to `payee`, and at once the calldata that pays
 * it from the payer's wallet (its allowance and balance read in the same single round trip as
 * `/pay`). Everything is checked before the request is written, so a 400 writes nothing; when
 * the chain cannot be read for the calldata, the request is deleted again before the error
 * answers: the client never learnt its id, and a retry would leave a twin.
 * With `recurrence`, a recurring payout instead (`recurring/create.ts`).
 */
export async function createPayout(
  deps: PayoutDeps,
  caller: RequestCaller,
  body: PayoutInput,
  client: ClientFee | null,
) {
  const payer = payerOf(body);
  if (body.recurrence !== undefined) {
    return createRecurringPayout(
      deps,
      caller,
      { ...body, recurrence: body.recurrence },
      payer,
      client,
      deps.payUrl,
    );
  }
  const prepared = await prepareRequest(deps, caller, {
    amount: body.amount,
    invoiceCurrency: body.invoiceCurrency,
    paymentCurrency: body.paymentCurrency,
    payee: body.payee,
    ...(payer !== undefined && { payer }),
    ...(body.reference !== undefined && { reference: body.reference }),
    ...(body.customerInfo !== undefined && { customerInfo: body.customerInfo }),
  });
  // The fee is checked now, on the amount, so that a bad one writes nothing.
  platformFee(
    prepared.network.chainId,
    prepared.expectedAmount,
    body.feePercentage,
    body.feeAddress,
  );
  // Written with the payouts and requests other callers make at the same moment.
  const row = await writeRequest(deps.db, { ...prepared, payout: true });
  const calldata = await unlessFailing(deps.db, [row], () =>
    requestCalldata(
      deps,
      row,
      {
        ...(row.payer !== null && { wallet: row.payer }),
        ...(body.feePercentage !== undefined && { feePercentage: body.feePercentage }),
        ...(body.feeAddress !== undefined && { feeAddress: body.feeAddress }),
      },
      client,
    ),
  );
  return {
    requestId: row.requestId,
    paymentReference: `0x${row.paymentReference}`,
    ...calldata,
  };
}

/** `payerWallet`, or its other names `payerAddress` and `payer`: one wallet, however named. */
function payerOf(body: {
  readonly payerWallet?: string | undefined;
  readonly payerAddress?: string | undefined;
  readonly payer?: string | undefined;
}): string | undefined {
  const named = (['payerWallet', 'payerAddress', 'payer'] as const).filter(
    (field) => body[field] !== undefined,
  );
  const [first, ...others] = named;
  if (first === undefined) return undefined;
  const value = body[first];
  const differing = others.find((field) => body[field]?.toLowerCase() !== value?.toLowerCase());
  if (differing) {
    throw new ValidationError([
      { field: differing, message: `names another wallet than ${first}; send one of them` },
    ]);
  }
  return value;
}
