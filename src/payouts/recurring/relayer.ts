import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import type { PrivateKey } from '../../config/readers.ts';

/** The signer of recurring payouts' triggers, from the configured key. */
export function relayerAccount(key: PrivateKey): PrivateKeyAccount {
  return privateKeyToAccount(key.reveal());
}
