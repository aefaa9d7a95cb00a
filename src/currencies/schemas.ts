import { Type } from 'typebox';
import type { CurrencyFacts } from '../chains/currencies.ts';

export const AUTH = ['apiKey', 'clientId'] as const;
export const TAGS = ['V2/Currencies'];
export const V1_TAGS = ['V1/Currencies'];

const CURRENCY_SCHEMA_ID = 'Currency';

export const CurrencySchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    symbol: Type.String(),
    decimals: Type.Integer({ minimum: 0 }),
    address: Type.String(),
    network: Type.String(),
    type: Type.Union([
      Type.Literal('ERC20'),
      Type.Literal('ETH'),
      Type.Literal('TRC20'),
      Type.Literal('ISO4217'),
    ]),
    hash: Type.String(),
    chainId: Type.Integer({ minimum: 0 }),
  },
  { $id: CURRENCY_SCHEMA_ID, additionalProperties: false },
);

export const CurrencyRef = Type.Ref(CURRENCY_SCHEMA_ID);

/** The wire form: exactly the schema's fields, in its order. */
export function currencyBody(currency: CurrencyFacts): CurrencyFacts {
  const { id, name, symbol, decimals, address, network, type, hash, chainId } = currency;
  return { id, name, symbol, decimals, address, network, type, hash, chainId };
}
