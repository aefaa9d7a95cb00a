import type { Account } from 'viem';

interface TypedDataJson {
  readonly types: Record<string, readonly { name: string; type: string }[]>;
  readonly domain: Record<string, unknown>;
  readonly primaryType: string;
  readonly message: Record<string, unknown>;
}

/**
 * `eth_signTypedData_v4`'s JSON as a wallet reads it: integers may come as decimal strings (as
 * JSON cannot hold a uint256), so the primary type's integer fields are read as bigints.
 */
export function typedDataOfJson(
  json: string,
): Parameters<NonNullable<Account['signTypedData']>>[0] {
  const data = JSON.parse(json) as TypedDataJson;
  const fields = data.types[data.primaryType] ?? [];
  const message = Object.fromEntries(
    Object.entries(data.message).map(([name, value]) => {
      const type = fields.find((field) => field.name === name)?.type ?? '';
      return [name, /^u?int\d*$/.test(type) ? BigInt(value as string | number) : value];
    }),
  );
  return { ...data, message } as never;
}
