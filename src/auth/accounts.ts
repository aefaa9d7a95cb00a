import type { Database } from '../db/client.ts';
import { accounts } from '../db/schema.ts';
import { issueApiKey } from './api-keys.ts';

export interface CreatedAccount {
  readonly accountId: string;
  readonly apiKey: string;
}

/** A new tenant with its first API key, both or neither. */
export async function createAccount(db: Database, name: string): Promise<CreatedAccount> {
  return db.transaction(async (tx) => {
    const [account] = await tx.insert(accounts).values({ name }).returning({ id: accounts.id });
    if (!account) throw new Error('account insert returned no row');
    const { apiKey } = await issueApiKey(tx, account.id);
    return { accountId: account.id, apiKey };
  });
}
