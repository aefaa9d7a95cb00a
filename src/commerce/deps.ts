import type { PrivateKeyAccount } from 'viem/accounts';
import type { Clock } from '../base/clock.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import type { ChainTime } from './chain-time.ts';
import type { SendQueue } from './send-queue.ts';

export interface CommerceDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  /** The time the escrow judges expiries by: its chain's (chain-time.ts). */
  readonly chainTime: ChainTime;
  /**
   * The server's operator on a network: `COMMERCE_OPERATOR_KEY`'s account; on a sandbox chain
   * without it, the sandbox's commerce operator (a development key); else null.
   */
  readonly operator: (network: NetworkId) => PrivateKeyAccount | null;
  /**
   * The server's operator is `COMMERCE_OPERATOR_KEY`'s, shared by every tenant: it sends no
   * refund (their tokens would come from its wallet, execute.ts). False with the sandbox's
   * development operator alone.
   */
  readonly sharedOperatorKey: boolean;
  /** One send at a time per network and operator address, across processes (its nonces). */
  readonly sends: SendQueue;
  /** The pay page's base URL (`PAY_URL`): a payment's page is `PAY_URL/?commerce=<payToken>`. */
  readonly payUrl: string;
  /** How long an execute operation waits for its receipt before answering it in flight. */
  readonly receiptTimeoutMs: number;
}
