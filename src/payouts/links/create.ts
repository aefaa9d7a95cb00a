import type { Clock } from '../../base/clock.ts';
import { type FieldError, ValidationError } from '../../base/errors.ts';
import { isFiat } from '../../chains/currencies.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { ProtocolFeeConfig } from '../../config/protocol-fee.ts';
import type { Database } from '../../db/client.ts';
import { parseWallet } from '../../destinations/destination-id.ts';
import { insertFeeLegs, payeeBorneTotal, plannedFeeLegs } from '../../fees/legs.ts';
import { parseAmount } from '../../payments/amounts.ts';
import { insertRequests } from '../../requests/requests.ts';
import { checkRedirect } from '../../secure-payments/create.ts';
import { insertLink } from '../../secure-payments/insert-link.ts';
import {
  type CreatedLink,
  type LinkCaller,
  requestOwnerOf,
} from '../../secure-payments/link-caller.ts';
import { currencyFeePlan } from '../../secure-payments/link-fee-plan.ts';
import { mintLink } from '../../secure-payments/mint-link.ts';

/**
 * Hosted payout links: money going out of `creatorWalletAddress` to one recipient. A payout
 * link is an ordinary link whose request names the creator as payer; only that wallet is
 * offered the payment (`assertPayoutWallet`). Several are merged into one by `batch.ts`.
 */

export interface CreatePayoutInput {
  readonly recipient: string;
  readonly creatorWalletAddress: string;
  readonly network: string;
  readonly currency: string;
  readonly amount: string;
  readonly reference?: string | undefined;
  readonly recipientIdentifier?: string | undefined;
  readonly redirectUrl?: string | undefined;
  readonly redirectLabel?: string | undefined;
}

export interface PayoutLinkDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly chains: ChainRegistry;
  readonly payUrl: string;
  /** The operator's fee, in the link's fee plan. */
  readonly protocolFee: ProtocolFeeConfig | null;
}

const CURATED_ONLY_MESSAGE =
  'is a token-list currency outside the curated set that payout links take; pay it through POST /v2/payouts';

/**
 * `POST /v2/secure-payments/payouts`: one request from the creator's wallet to the recipient,
 * in a currency of the named network, written with its link in one transaction. Every field
 * problem is reported at once, before anything is written.
 */
export async function createPayoutLink(
  deps: PayoutLinkDeps,
  caller: LinkCaller,
  input: CreatePayoutInput,
): Promise<CreatedLink> {
  const redirect = checkRedirect(input);
  const errors: FieldError[] = [];
  const network = deps.chains.network(input.network);
  if (!network) {
    errors.push({
      field: 'network',
      message: `must be one of ${deps.chains.networkIds.join(', ')}`,
    });
  }
  const currency = deps.chains.currency(input.currency);
  if (!currency || isFiat(currency)) {
    errors.push({ field: 'currency', message: 'is not a supported currency id' });
  } else if (!deps.chains.isCurated(currency)) {
    // Links keep to the curated set, as destinations do; the token list's others are paid
    // through requests and payouts.
    errors.push({ field: 'currency', message: CURATED_ONLY_MESSAGE });
  } else if (network && currency.network !== network.id) {
    errors.push({ field: 'currency', message: `must be a currency of ${network.id}` });
  }
  const wallet = (field: 'recipient' | 'creatorWalletAddress'): string | null => {
    if (!network) return null;
    const parsed = parseWallet(input[field], network.chainId);
    if (parsed.ok) return parsed.address;
    errors.push({ field, message: parsed.message });
    return null;
  };
  const recipient = wallet('recipient');
  const creator = wallet('creatorWalletAddress');
  const amount =
    currency && !isFiat(currency) ? parseAmount(input.amount, currency.decimals) : null;
  if (amount && !amount.ok) errors.push({ field: 'amount', message: amount.message });
  if (errors.length > 0) throw new ValidationError(errors);
  if (!network || !currency || !recipient || !creator || !amount?.ok) {
    throw new Error('payout inputs passed validation without values');
  }

  // A payout's plan: flow `pay`, the payer (its creator) bearing fees by default.
  const feePlan = await currencyFeePlan(deps, caller, {
    flow: 'pay',
    currency,
    amount: amount.value,
  });
  const legs = plannedFeeLegs(feePlan, currency);
  const minted = await mintLink(deps, caller, (draft) =>
    deps.db.transaction(async (tx) => {
      const link = await insertLink(tx, {
        ...draft,
        network: network.id,
        creatorWallet: creator,
        reference: input.reference ?? null,
        payerIdentifier: input.recipientIdentifier ?? null,
        ...redirect,
        feePlan,
      });
      const rows = await insertRequests(tx, [
        {
          ...requestOwnerOf(caller),
          securePaymentId: link.id,
          position: 0,
          network,
          invoiceCurrency: currency,
          paymentCurrency: currency,
          expectedAmount: amount.value,
          payeeBorneFees: payeeBorneTotal(legs),
          payee: recipient,
          payer: creator,
          reference: input.reference ?? null,
          payout: true,
        },
      ]);
      const [row] = rows;
      if (row)
        await insertFeeLegs(
          tx,
          { requestId: row.requestId, network: network.id, currency: currency.id },
          legs,
        );
      return rows.map((written) => written.requestId);
    }),
  );
  return { ...minted, feePlan };
}
