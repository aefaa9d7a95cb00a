import { type Address, createWalletClient, custom, encodeFunctionData, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_NETWORK } from '../../src/chains/networks.ts';
import { createChainRegistry } from '../../src/chains/registry.ts';
import { RELAYER_ROLE, recurringPaymentProxyAbi } from '../../src/payouts/recurring/abi.ts';
import type { SchedulePermitValues } from '../../src/payouts/recurring/permit.ts';
import { triggerRecurringPayment } from '../../src/payouts/recurring/trigger.ts';
import { sandboxRelayer } from '../../src/sandbox/addresses.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import { sandboxNetwork } from '../../src/sandbox/network.ts';
import { testConfig } from '../app.ts';
import { accountOf, sendAll, standIn } from '../chain.ts';
import { chainTime, signPermit, TOKEN_ABI, WEEK } from '../recurring-proxy.ts';

/**
 * The sandbox chain ships ERC20RecurringPaymentProxy next to the other Request contracts, at
 * its fixed address, wired to the sandbox's ERC20FeeProxy, with the documented sandbox relayer
 * holding RELAYER_ROLE: that relayer's key alone is enough to execute a payer's schedule.
 */

const VIEWS = parseAbi([
  'function owner() view returns (address)',
  'function erc20FeeProxy() view returns (address)',
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
]);
const PAYEE = '0x000000000000000000000000000000000000bEEF';

let chain: LocalChain;
let proxy: Address;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: SANDBOX_NETWORK.chainId, walletCount: 2 });
  proxy = chain.addresses.recurringPaymentProxy;
}, 120_000);
afterAll(async () => {
  await chain?.close();
});

const read = <const F extends 'owner' | 'erc20FeeProxy' | 'eip712Domain'>(functionName: F) =>
  chain.client.readContract({ address: proxy, abi: VIEWS, functionName });

describe('the sandbox chain’s ERC20RecurringPaymentProxy', () => {
  it('is the sandbox network’s recurring proxy, wired to its ERC20FeeProxy', async () => {
    const registry = createChainRegistry(testConfig(), sandboxNetwork('http://127.0.0.1:8080'));
    expect(registry.contracts('sandbox').recurringPaymentProxy).toBe(proxy);
    expect(await read('erc20FeeProxy')).toBe(chain.addresses.erc20FeeProxy);
    expect(await read('owner')).toBe(accountOf(chain, 0).address);
    const [fields, name, version, chainId, verifyingContract] = await read('eip712Domain');
    expect({ fields, name, version, chainId, verifyingContract }).toEqual({
      fields: '0x0f',
      name: 'ERC20RecurringPaymentProxy',
      version: '1',
      chainId: BigInt(SANDBOX_NETWORK.chainId),
      verifyingContract: proxy,
    });
  });

  it('gives the documented sandbox relayer the role, funded with ether', async () => {
    const relayer = sandboxRelayer();
    expect(relayer.address).toBe('0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199');
    const hasRole = (account: Address) =>
      chain.client.readContract({
        address: proxy,
        abi: recurringPaymentProxyAbi,
        functionName: 'hasRole',
        args: [RELAYER_ROLE, account],
      });
    expect(await hasRole(relayer.address)).toBe(true);
    expect(await hasRole(accountOf(chain, 0).address)).toBe(false);
    expect(await chain.client.getBalance({ address: relayer.address })).toBeGreaterThan(10n ** 21n);
  });

  it('lets the sandbox relayer execute a payer’s signed schedule', async () => {
    const payer = accountOf(chain, 1);
    const token = chain.addresses.usdt;
    const now = await chainTime(chain);
    const permit: SchedulePermitValues = {
      subscriber: payer.address,
      token,
      recipient: PAYEE,
      feeAddress: '0x0000000000000000000000000000000000000000',
      amount: 40_000_000n,
      feeAmount: 0n,
      relayerFee: 5_000n,
      periodSeconds: WEEK,
      firstPayment: now,
      totalPayments: 2,
      nonce: 1n,
      deadline: BigInt(now + 4 * WEEK),
      strictOrder: true,
    };
    const approve = encodeFunctionData({
      abi: TOKEN_ABI,
      functionName: 'approve',
      args: [proxy, 2n * (40_000_000n + 5_000n)],
    });
    await sendAll(chain, payer, [
      { to: token, data: approve, value: '0x0', chainId: chain.chainId },
    ]);
    const signature = await signPermit(chain, proxy, payer.address, permit);

    const relayer = sandboxRelayer();
    const balance = (owner: Address) =>
      chain.client.readContract({
        address: token,
        abi: TOKEN_ABI,
        functionName: 'balanceOf',
        args: [owner],
      });
    const [payerBefore, relayerBefore] = [
      await balance(payer.address),
      await balance(relayer.address),
    ];
    const tx = triggerRecurringPayment({
      chainId: chain.chainId,
      proxy,
      permit,
      signature,
      index: 1,
      paymentReference: 'b1b2b3b4b5b6b7b8',
    });
    const wallet = createWalletClient({
      account: privateKeyToAccount(relayer.privateKey),
      chain: chain.chain,
      transport: custom(chain.provider, { retryCount: 0 }),
    });
    const hash = await wallet.sendTransaction({ to: tx.to, data: tx.data });
    expect((await chain.client.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await balance(PAYEE)).toBe(40_000_000n);
    expect(await balance(relayer.address)).toBe(relayerBefore + 5_000n);
    expect(await balance(payer.address)).toBe(payerBefore - 40_005_000n);
  });
});

describe('a local chain standing in for a network', () => {
  it('carries the recurring proxy where the network has one (base), not where it has none', async () => {
    for (const [network, expected] of [
      ['base', true],
      ['optimism', false],
    ] as const) {
      const local = await standIn(network, { walletCount: 1 });
      try {
        const contracts = createChainRegistry(testConfig(local.env)).contracts(network);
        expect(contracts.recurringPaymentProxy).toBe(
          expected ? local.chain.addresses.recurringPaymentProxy : null,
        );
        expect(contracts.erc20FeeProxy).toBe(local.chain.addresses.erc20FeeProxy);
      } finally {
        await local.chain.close();
      }
    }
  });
});
