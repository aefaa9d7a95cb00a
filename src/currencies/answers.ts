import type { ChainRegistry } from '../chains/registry.ts';
import { currencyBody } from './schemas.ts';
import { type CurrencyQuery, selectCurrencies } from './select.ts';

/** Distinct successful lookups whose answers are kept; past it the oldest is dropped. */
const MAX_KEPT_ANSWERS = 1_000;

/** A field of a kept answer's key: absent, or its length and text (so no two lookups share one). */
const field = (value: string | undefined): string =>
  value === undefined ? '-' : `${value.length}:${value}`;

/**
 * `GET /v2/currencies`' answers, as JSON text. The currencies of a process never change, so
 * neither does the answer to a lookup: each is serialised once. (The union response schema
 * made Fastify's serialiser run Ajv on every answer to pick a branch.)
 */
export function createCurrencyAnswers(deps: {
  chains: ChainRegistry;
}): (query: CurrencyQuery) => string {
  const answers = new Map<string, string>();
  return (query) => {
    // Absent and empty are different lookups; only what selected is kept.
    const key =
      field(query.network) +
      field(query.symbol?.toLowerCase()) +
      field(query.id) +
      field(query.firstOnly);
    const kept = answers.get(key);
    if (kept !== undefined) return kept;
    const selection = selectCurrencies(deps.chains.catalogue, query);
    const answer = JSON.stringify(
      selection.kind === 'one'
        ? currencyBody(selection.currency)
        : selection.currencies.map(currencyBody),
    );
    if (answers.size >= MAX_KEPT_ANSWERS) answers.delete(answers.keys().next().value ?? '');
    answers.set(key, answer);
    return answer;
  };
}
