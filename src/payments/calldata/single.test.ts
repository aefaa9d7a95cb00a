import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/app.ts';
import { createChainClients } from '../../chains/clients.ts';
import { createChainRegistry } from '../../chains/registry.ts';
import type { PaymentLeg } from '../transactions.ts';
import { buildSingleCalldata } from './single.ts';

const config = testConfig();
const chains = createChainRegistry(config);
const deps = { chains, clients: createChainClients({ config, chains }) };

function leg(currencyId: string, payee: string): PaymentLeg {
  const currency = chains.currency(currencyId);
  const network = currency && chains.network(currency.network);
  if (!currency || !network) throw new Error(`${currencyId} is missing`);
  return {
    requestId: `01${'12'.repeat(32)}`,
    network,
    currency,
    payee,
    amount: 1_000_000n,
    paymentReference: '0f0f0f0f0f0f0f0f',
    feeAmount: 0n,
    feeAddress: null,
  };
}

/** Each call's target and selector: enough to tell which builder answered. */
async function calls(payment: PaymentLeg) {
  const { transactions } = await buildSingleCalldata(deps, payment, {});
  return transactions.map((tx) =>
    'type' in tx
      ? `${tx.contractAddress} ${tx.functionSelector}`
      : `${tx.to} ${tx.data.slice(0, 10)} value ${tx.value}`,
  );
}

describe('buildSingleCalldata', () => {
  const evmPayee = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

  it('pays an ERC20 token through an approval and the ERC20FeeProxy', async () => {
    expect(await calls(leg('DAI-matic', evmPayee))).toMatchInlineSnapshot(`
      [
        "0x8f3Cf7ad23Cd3CaDbD9735AFf958023239c6A063 0x095ea7b3 value 0x0",
        "0x0DfbEe143b42B41eFC5A6F87bFD1fFC78c2f0aC9 0xc219a14d value 0x0",
      ]
    `);
  });

  it('pays the native currency through the EthereumFeeProxy alone', async () => {
    expect(await calls(leg('POL-matic', evmPayee))).toMatchInlineSnapshot(`
      [
        "0xfCFBcfc4f5A421089e3Df45455F7f4985FE2D6a8 0xb868980b value 0xf4240",
      ]
    `);
  });

  it('pays a TRC-20 token through trigger-smart-contract calls', async () => {
    expect(
      await calls(leg('USDC-tron', 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy')),
    ).toMatchInlineSnapshot(`
      [
        "TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8 approve(address,uint256)",
        "TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd transferFromWithReferenceAndFee(address,address,uint256,bytes,uint256,address)",
      ]
    `);
  });
});
