import { call, read } from './api.ts';
import type { LinkItem } from './links.tsx';
import type { Payment } from './payment.ts';

/**
 * What a link's page shows, read over the public API: the link as the list has it, its
 * answer to the pay page (what it asks, its fee legs), and per request its payments and the
 * webhooks they caused.
 */

/** A fee leg, as a link's answer carries it. */
interface FeeLeg {
  readonly label: string;
  readonly feeBearer: string;
  readonly amount: string;
  readonly currency: string;
  readonly recipient: string;
  readonly status: 'paid' | 'outstanding';
  readonly txHash: string | null;
}

/** What a request of the link asks, from its answer (awaiting payment: 200; paid: 409). */
interface Asked {
  readonly payee: string;
  readonly amount: string;
  readonly currency: string;
}

interface Shown {
  readonly asked: readonly Asked[];
  readonly feeLegs: readonly FeeLeg[];
}

/** A webhook a request's payment caused (`GET /v2/dashboard/deliveries`). */
export interface Delivery {
  readonly id: string;
  readonly url: string;
  readonly event: string;
  readonly status: 'pending' | 'delivered' | 'failed';
  readonly attempts: number;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly createdAt: string;
}

export interface Activity {
  readonly link: LinkItem;
  readonly shown: Shown | null;
  readonly payments: readonly Payment[];
  readonly deliveries: readonly Delivery[];
}

interface Display {
  readonly paymentType: string;
  readonly payee?: string;
  readonly amount?: string;
  readonly paymentCurrency?: string;
  readonly invoiceCurrency?: string;
  readonly invoiceAmount?: string;
  readonly payees?: readonly string[];
  readonly amounts?: readonly string[];
  readonly paymentCurrencies?: readonly string[];
  readonly requestStatuses?: readonly Asked[];
  readonly feeLegs?: readonly FeeLeg[];
}

/** The requests and fee legs of a link's answer, whichever status it has. */
function shownOf(display: Display): Shown {
  const feeLegs = display.feeLegs ?? [];
  if (display.requestStatuses) return { asked: display.requestStatuses, feeLegs };
  if (display.payees && display.amounts) {
    const currencies = display.paymentCurrencies ?? [];
    return {
      asked: display.payees.map((payee, i) => ({
        payee,
        amount: display.amounts?.[i] ?? '',
        currency: currencies[i] ?? '',
      })),
      feeLegs,
    };
  }
  if (display.payee !== undefined && display.amount !== undefined) {
    return {
      asked: [
        {
          payee: display.payee,
          amount: display.amount,
          currency: display.invoiceCurrency ?? display.paymentCurrency ?? '',
        },
      ],
      feeLegs,
    };
  }
  return { asked: [], feeLegs };
}

/** Reads everything the page shows, over the public API. */
export async function readActivity(apiBase: string, token: string): Promise<Activity> {
  const [link, display] = await Promise.all([
    call<LinkItem>(apiBase, `/v2/dashboard/links/${token}`),
    read<Display>(apiBase, `/v2/secure-payments/${token}`, [403, 409, 423]),
  ]);
  const ids = link.requestIds;
  const [payments, deliveries] = await Promise.all([
    Promise.all(
      ids.map((id) =>
        call<{ payments: Payment[] }>(
          apiBase,
          `/v2/payments?requestId=${encodeURIComponent(id)}&limit=100`,
        ).then((found) => found.payments),
      ),
    ),
    Promise.all(
      ids.map((id) =>
        call<{ deliveries: Delivery[] }>(
          apiBase,
          `/v2/dashboard/deliveries?requestId=${encodeURIComponent(id)}`,
        ).then((found) => found.deliveries),
      ),
    ),
  ]);
  return {
    link,
    // An expired link's answer (403) or one being paid from a Safe (423) says no amounts.
    shown: display.status === 200 || display.status === 409 ? shownOf(display.body) : null,
    payments: payments.flat(),
    deliveries: deliveries.flat(),
  };
}
