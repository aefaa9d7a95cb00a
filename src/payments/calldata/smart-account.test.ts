import { type Address, custom, getAddress, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/app.ts';
import { accountOf, sendAll } from '../../../test/chain.ts';
import {
  callsOf,
  deployBatchAccount,
  executeAsOwner,
  executeRelayed,
  permitCall,
  signPermit,
} from '../../../test/smart-account.ts';
import { AppError } from '../../base/errors.ts';
import { createChainClients } from '../../chains/clients.ts';
import { createChainRegistry } from '../../chains/registry.ts';
import { type LocalChain, startLocalChain } from '../../sandbox/chain.ts';
import { sandboxNetwork } from '../../sandbox/network.ts';
import { parseAmount } from '../amounts.ts';
import type { PaymentLeg } from '../transactions.ts';
import { type ConversionLeg, padFiat } from './conversion.ts';
import { buildErc20Calldata } from './erc20.ts';
import { buildSmartAccountCalldata, type EoaState, smartAccountCalldata } from './smart-account.ts';

const ACCOUNT = '0x1111111111111111111111111111111111111111';
const OWNER = '0x2222222222222222222222222222222222222222';

describe('smartAccountCalldata (reads nothing)', () => {
  const config = testConfig();
  const chains = createChainRegistry(config);
  const deps = { chains, clients: createChainClients({ config, chains }) };

  function leg(currencyId: string): PaymentLeg {
    const network = chains.network('mainnet');
    const currency = chains.currency(currencyId);
    if (!network || !currency) throw new Error(currencyId);
    return {
      requestId: `01${'ab'.repeat(32)}`,
      network,
      currency,
      payee: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      amount: 12_500_000n,
      paymentReference: '0123456789abcdef',
      feeAmount: 0n,
      feeAddress: null,
    };
  }

  async function answer(currencyId: string, eoa: EoaState) {
    const payment = leg(currencyId);
    // Built without a wallet: the proxy's approval and the payment, as the account sends them.
    const built = await buildErc20Calldata(deps, payment, {});
    return smartAccountCalldata(built, {
      leg: payment,
      account: ACCOUNT,
      owner: OWNER,
      pull: 12_500_000n,
      eoa,
    });
  }

  it('puts the pull from the EOA first and hands out the permit to sign', async () => {
    const permit = {
      domain: {
        name: 'USD Coin',
        version: '2',
        chainId: 1,
        verifyingContract: getAddress('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
      },
      nonce: 3n,
    };
    expect(
      await answer('USDC-mainnet', { allowance: 0n, permit, blockTimestamp: 1_800_000_000n }),
    ).toMatchInlineSnapshot(`
      {
        "eoaApprovalTransactions": [],
        "feeBundle": null,
        "metadata": {
          "approvalTransactionIndex": 1,
          "approvalTransactionsCount": 1,
          "eoaApproval": {
            "amount": "12.5",
            "approvalType": "unlimited",
            "currency": "USDC-mainnet",
            "owner": "0x2222222222222222222222222222222222222222",
            "spender": "0x1111111111111111111111111111111111111111",
            "tokenAddress": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
          },
          "eoaApprovalPermit": {
            "domain": {
              "chainId": 1,
              "name": "USD Coin",
              "verifyingContract": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
              "version": "2",
            },
            "message": {
              "deadline": "1800003600",
              "nonce": "3",
              "owner": "0x2222222222222222222222222222222222222222",
              "spender": "0x1111111111111111111111111111111111111111",
              "value": "115792089237316195423570985008687907853269984665640564039457584007913129639935",
            },
            "primaryType": "Permit",
            "types": {
              "Permit": [
                {
                  "name": "owner",
                  "type": "address",
                },
                {
                  "name": "spender",
                  "type": "address",
                },
                {
                  "name": "value",
                  "type": "uint256",
                },
                {
                  "name": "nonce",
                  "type": "uint256",
                },
                {
                  "name": "deadline",
                  "type": "uint256",
                },
              ],
            },
          },
          "eoaApprovalRequired": true,
          "needsApproval": true,
          "paymentTransactionIndex": 2,
          "requiredAmount": "12.5",
          "routeType": "samechain",
          "stepsRequired": 3,
          "transactionSponsorshipFeeUsd": null,
        },
        "paymentType": "single",
        "transactions": [
          {
            "chainId": 1,
            "data": "0x23b872dd000000000000000000000000222222222222222222222222222222222222222200000000000000000000000011111111111111111111111111111111111111110000000000000000000000000000000000000000000000000000000000bebc20",
            "to": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
            "value": "0x0",
          },
          {
            "chainId": 1,
            "data": "0x095ea7b3000000000000000000000000370de27fdb7d1ff1e1baa7d11c5820a324cf623c0000000000000000000000000000000000000000000000000000000000bebc20",
            "to": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
            "value": "0x0",
          },
          {
            "chainId": 1,
            "data": "0xc219a14d000000000000000000000000a0b86991c6218b36c1d19d4a2e9eb0ce3606eb480000000000000000000000005aaeb6053f3e94c9b9a09f33669435e7ef1beaed0000000000000000000000000000000000000000000000000000000000bebc2000000000000000000000000000000000000000000000000000000000000000c00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080123456789abcdef000000000000000000000000000000000000000000000000",
            "to": "0x370DE27fdb7D1Ff1e1BaA7D11c5820a324Cf623C",
            "value": "0x0",
          },
        ],
      }
    `);
  });

  it('asks the EOA for an unlimited approval transaction when the token takes no permit', async () => {
    const built = await answer('USDC-mainnet', {
      allowance: 0n,
      permit: null,
      blockTimestamp: 1_800_000_000n,
    });
    expect(built.eoaApprovalTransactions).toMatchInlineSnapshot(`
      [
        {
          "chainId": 1,
          "data": "0x095ea7b30000000000000000000000001111111111111111111111111111111111111111ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
          "to": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
          "value": "0x0",
        },
      ]
    `);
    expect(built.metadata.eoaApprovalRequired).toBe(true);
    expect(built.metadata.eoaApprovalPermit).toBeUndefined();
  });

  it('resets a short allowance to zero first for a token that requires it (USDT)', async () => {
    const built = await answer('USDT-mainnet', {
      allowance: 1n,
      permit: null,
      blockTimestamp: 1_800_000_000n,
    });
    expect(built.eoaApprovalTransactions?.map((tx) => tx.data.slice(-64))).toEqual([
      '0'.repeat(64),
      'f'.repeat(64),
    ]);
  });

  it('asks for nothing of the EOA once the account may take enough', async () => {
    const built = await answer('USDC-mainnet', {
      allowance: 12_500_000n,
      permit: null,
      blockTimestamp: 1_800_000_000n,
    });
    expect(built.eoaApprovalTransactions).toEqual([]);
    expect(built.metadata).toMatchObject({ eoaApprovalRequired: false });
    expect(built.metadata.eoaApproval).toBeUndefined();
  });
});

describe('buildSmartAccountCalldata on the sandbox chain', () => {
  const config = testConfig({ SANDBOX: 'true' });
  const chains = createChainRegistry(config, sandboxNetwork(config.baseUrl));
  const TOKEN = parseAbi(['function balanceOf(address) view returns (uint256)']);
  let chain: LocalChain;
  let deps: Parameters<typeof buildSmartAccountCalldata>[0];

  beforeAll(async () => {
    chain = await startLocalChain({ chainId: 31337 });
    deps = {
      chains,
      clients: createChainClients({
        config,
        chains,
        transports: { sandbox: custom(chain.provider, { retryCount: 0 }) },
      }),
    };
  });
  afterAll(async () => {
    await chain?.close();
  });

  const balance = (token: Address, owner: Address) =>
    chain.client.readContract({
      address: token,
      abi: TOKEN,
      functionName: 'balanceOf',
      args: [owner],
    });

  function plainLeg(currencyId: string, amount: bigint, reference: string): PaymentLeg {
    const network = chains.network('sandbox');
    const currency = chains.currency(currencyId);
    if (!network || !currency) throw new Error(currencyId);
    return {
      requestId: `01${reference.padStart(64, '0')}`,
      network,
      currency,
      payee: accountOf(chain, 1).address,
      amount,
      paymentReference: reference,
      feeAmount: 0n,
      feeAddress: null,
    };
  }

  it('refuses the native currency and Tron', async () => {
    const payer = { wallet: ACCOUNT, eoaWallet: OWNER };
    const native = await buildSmartAccountCalldata(
      deps,
      plainLeg('ETH-sandbox', 10n ** 15n, '00000000000000e1'),
      payer,
    ).catch((error: unknown) => error);
    expect(native).toBeInstanceOf(AppError);
    expect(native).toMatchObject({
      code: 'smart_account_native_unsupported',
      message:
        'Smart-account payments (eoaWallet) cannot pay in the native currency; pay from the wallet that holds it, without eoaWallet',
    });
    const tronNetwork = chains.network('tron');
    const usdt = chains.currency('USDT-tron');
    if (!tronNetwork || !usdt) throw new Error('Tron USDT');
    const tron = await buildSmartAccountCalldata(
      deps,
      { ...plainLeg('USDC-sandbox', 1n, '00000000000000e2'), network: tronNetwork, currency: usdt },
      payer,
    ).catch((error: unknown) => error);
    expect(tron).toMatchObject({
      code: 'smart_account_unsupported',
      message: 'Smart-account payments (eoaWallet) are not supported on Tron',
    });
  });

  it('pays a permit token with the EOA signing only: permit, pull, approve, pay in one batch', async () => {
    const owner = accountOf(chain, 2);
    const relayer = accountOf(chain, 3);
    const account = await deployBatchAccount(chain, owner.address);
    const leg = plainLeg('TST-sandbox', 7n * 10n ** 18n + 1n, '00000000000000a1');
    const tst = getAddress(chain.addresses.tst);
    const before = {
      owner: await balance(tst, owner.address),
      payee: await balance(tst, leg.payee as Address),
      nonce: await chain.client.getTransactionCount({ address: owner.address }),
    };
    const built = await buildSmartAccountCalldata(deps, leg, {
      wallet: account,
      eoaWallet: owner.address,
    });
    const permit = built.metadata.eoaApprovalPermit;
    if (!permit) throw new Error('TST takes permits');
    expect(built.eoaApprovalTransactions).toEqual([]);
    const signature = await signPermit(owner, permit);
    await executeRelayed(chain, owner, relayer, account, [
      permitCall(tst, permit, signature),
      ...callsOf(built.transactions),
    ]);
    expect(await balance(tst, owner.address)).toBe(before.owner - leg.amount);
    expect(await balance(tst, leg.payee as Address)).toBe(before.payee + leg.amount);
    expect(await balance(tst, account)).toBe(0n);
    expect(await chain.client.getTransactionCount({ address: owner.address })).toBe(before.nonce);

    // The permit was unlimited: the next payment asks nothing of the EOA.
    const next = await buildSmartAccountCalldata(
      deps,
      plainLeg('TST-sandbox', 10n ** 18n, '00000000000000a2'),
      { wallet: account, eoaWallet: owner.address },
    );
    expect(next.metadata).toMatchObject({ eoaApprovalRequired: false });
    expect(next.metadata.eoaApprovalPermit).toBeUndefined();
  });

  it('pays a fiat invoice at the on-chain rate, the account keeping what the margin left', async () => {
    const owner = accountOf(chain, 4);
    const account = await deployBatchAccount(chain, owner.address);
    const network = chains.network('sandbox');
    const invoiceCurrency = chains.currency('EUR');
    const currency = chains.currency('USDC-sandbox');
    if (!network || !invoiceCurrency || !currency) throw new Error('sandbox currencies');
    const leg: ConversionLeg = {
      requestId: `01${'c1'.padStart(64, '0')}`,
      network,
      invoiceCurrency,
      currency,
      payee: accountOf(chain, 1).address,
      amount: 10_000n,
      paymentReference: '00000000000000c1',
      feeAmount: padFiat(0n, invoiceCurrency),
      feeAddress: null,
    };
    const usdc = getAddress(chain.addresses.usdc);
    const before = {
      owner: await balance(usdc, owner.address),
      payee: await balance(usdc, leg.payee as Address),
    };
    const built = await buildSmartAccountCalldata(deps, leg, {
      wallet: account,
      eoaWallet: owner.address,
    });
    // The sandbox USDC takes no permit: the EOA sends its approval first.
    expect(built.metadata.eoaApprovalPermit).toBeUndefined();
    expect(built.eoaApprovalTransactions).toHaveLength(1);
    await sendAll(chain, owner, built.eoaApprovalTransactions ?? []);
    await executeAsOwner(chain, owner, account, callsOf(built.transactions));
    const amounts = built.metadata as { requiredAmount: string; maxToSpend?: string };
    const quote = parseAmount(amounts.requiredAmount, 6);
    const max = parseAmount(amounts.maxToSpend ?? '', 6);
    if (!quote.ok || !max.ok) throw new Error('amounts');
    // 100 EUR at 1.08 USD.
    expect(quote.value).toBe(108_000_000n);
    expect(await balance(usdc, leg.payee as Address)).toBe(before.payee + quote.value);
    expect(await balance(usdc, owner.address)).toBe(before.owner - max.value);
    expect(await balance(usdc, account)).toBe(max.value - quote.value);
  });
});
