/**
 * Tables. Column names are snake_case in SQL (the client is built with `casing: 'snake_case'`).
 * Money is `numeric(78,0)` base units; credentials are stored only as SHA-256 digests next to a
 * short lookup prefix, never in clear.
 */

export * from './schema/branding.ts';
export * from './schema/chain.ts';
export * from './schema/commerce.ts';
export * from './schema/fees.ts';
export * from './schema/idempotency.ts';
export * from './schema/intents.ts';
export * from './schema/journeys.ts';
export * from './schema/link-intents.ts';
export * from './schema/links.ts';
export * from './schema/offramp.ts';
export * from './schema/payers.ts';
export * from './schema/recurring.ts';
export * from './schema/screening.ts';
export * from './schema/sign-in.ts';
export * from './schema/tenants.ts';
export * from './schema/webhooks.ts';
