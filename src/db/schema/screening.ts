import { index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { uuidV7 } from '../../base/uuid-v7.ts';
import { createdAt } from './columns.ts';

/**
 * Screening of payers (src/screening/): every answer a screening provider gave about a wallet,
 * kept for audit and read back as a short cache, and the last `secure_payment.access_rejected`
 * sent per link and wallet, so a refused wallet is reported at most once per window whichever
 * process refuses it.
 */

export type ScreeningProviderName = 'hypernative' | 'merklescience';

/** A link's payer rules as resolved when it was made (api-facts §11.5). */
export interface LinkScreening {
  /** `kyt_all_wallets`: every payer wallet is screened; `off`: none is. */
  readonly mode: 'off' | 'kyt_all_wallets';
  /** Primary first, then the backup used on a technical failure only. */
  readonly providers: readonly {
    readonly provider: ScreeningProviderName;
    readonly policyId: string | null;
  }[];
  /** Where the rule came from: the client ID's KYT plan, the link's body, or its destination. */
  readonly source: 'plan' | 'payment' | 'destination' | 'none';
  /** The only wallets that may pay (EVM lower-cased, Tron as written); empty: any. */
  readonly allowedPayerAddresses: readonly string[];
}

export const screeningResults = pgTable(
  'screening_results',
  {
    id: uuid()
      .primaryKey()
      .$defaultFn(() => uuidV7()),
    /** EVM lower-cased, Tron as written. */
    wallet: text().notNull(),
    provider: text().$type<ScreeningProviderName>().notNull(),
    policyId: text(),
    /** The link's network the wallet was screened on: an answer is reused only for the same. */
    network: text().notNull(),
    status: text().$type<'approved' | 'rejected'>().notNull(),
    /** The provider's plain words for a rejection (its category or recommendation). */
    reason: text(),
    /** The link the screening was for, if any, and when: `access` (calldata) or `completion`. */
    securePaymentId: uuid(),
    stage: text().$type<'access' | 'completion'>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index().on(t.wallet, t.provider, t.createdAt), index().on(t.securePaymentId)],
);

export const accessRejections = pgTable(
  'access_rejections',
  {
    securePaymentId: uuid().notNull(),
    wallet: text().notNull(),
    notifiedAt: timestamp({ withTimezone: true }).notNull(),
    /** The deliveries of the last event sent: when all failed, a new attempt sends again. */
    deliveryIds: text().array().notNull(),
  },
  (t) => [primaryKey({ columns: [t.securePaymentId, t.wallet] })],
);
