import { createWalletClient, getAddress, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.ts';
import { payers, paymentDetails } from '../../src/db/schema.ts';
import { createService, type Service } from '../../src/main.ts';
import { sandboxWallets } from '../../src/sandbox/addresses.ts';
import { LogCapture, testConfig } from '../app.ts';
import { createTenant } from '../fixtures.ts';
import { copyMigratedDatabase, freePort } from '../process.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';

/**
 * The sandbox runs crypto-to-fiat offline: the service started as `npm start` starts it (the
 * sandbox on, no OFFRAMP_URL) runs its own fake off-ramp, which watches the deposit address on
 * the sandbox chain and calls the service back; a USDC-sandbox request paid to fiat by test
 * wallet 2 ends, on its own, in signed `payment.processing` deliveries through every step and
 * `payment.confirmed`.
 */

let service: Service | undefined;
let receiver: Receiver | undefined;
afterAll(async () => {
  await service?.stop();
  await receiver?.close();
});

describe('crypto-to-fiat on the sandbox', () => {
  it('runs the whole flow with the sandbox’s own off-ramp', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const config = testConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      SANDBOX: 'true',
      BASE_URL: base,
      INDEXER_POLL_MS: '200',
      DISPATCHER_POLL_MS: '200',
      SANDBOX_IDLE_BLOCK_MS: '300',
    });
    copyMigratedDatabase(config.dataDir);
    const logs = new LogCapture();
    service = await createService(config, createLogger('info', logs));
    await service.listen();
    expect(logs.text()).toContain('sandbox off-ramp ready');
    const db = service.database.db;
    const tenant = await createTenant(db);
    const [payer] = await db
      .insert(payers)
      .values({
        accountId: tenant.accountId,
        clientUserId: 'freelancer-1',
        kycStatus: 'approved',
        agreementStatus: 'completed',
      })
      .returning();
    const [details] = await db
      .insert(paymentDetails)
      .values({
        payerId: payer?.id ?? '',
        accountId: tenant.accountId,
        status: 'approved',
        currency: 'usd',
        beneficiaryType: 'individual',
      })
      .returning();
    receiver = await startReceiver();
    const headers = { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' };
    const registered = await fetch(`${base}/v1/webhook`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url }),
    });
    receiver.verifyWith(((await registered.json()) as { secret: string }).secret);

    const created = await fetch(`${base}/v2/request`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        amount: '40',
        invoiceCurrency: 'USDC-sandbox',
        paymentCurrency: 'USDC-sandbox',
        isCryptoToFiatAvailable: true,
      }),
    });
    expect(created.status).toBe(201);
    const { requestId } = (await created.json()) as { requestId: string };
    const wallet = sandboxWallets()[2];
    if (!wallet) throw new Error('no test wallet 2');
    const pay = await fetch(
      `${base}/v2/request/${requestId}/pay?clientUserId=freelancer-1&paymentDetailsId=${details?.id}&wallet=${wallet.address}`,
      { headers },
    );
    expect(pay.status).toBe(200);
    const { transactions } = (await pay.json()) as {
      transactions: { to: string; data: Hex; value: { hex: Hex } }[];
    };
    const client = createWalletClient({
      account: privateKeyToAccount(wallet.privateKey),
      transport: http(`${base}/sandbox/rpc`),
    });
    for (const tx of transactions) {
      await client.sendTransaction({
        chain: null,
        to: getAddress(tx.to),
        data: tx.data,
        value: BigInt(tx.value.hex),
      });
    }

    const received = await receiver.waitFor(6, 60_000);
    const events = received.map((r) => `${r.body.event} ${r.body.subStatus}`);
    expect(events.slice(0, 4)).toEqual([
      'payment.processing initiated',
      'payment.processing pending_internal_assessment',
      'payment.processing ongoing_checks',
      'payment.processing sending_fiat',
    ]);
    expect(events.slice(4).sort()).toEqual([
      'payment.confirmed fiat_sent',
      'payment.processing fiat_sent',
    ]);
    expect(receiver.refused).toEqual([]);
    const status = await fetch(`${base}/v2/request/${requestId}`, { headers });
    expect(await status.json()).toMatchObject({ status: 'paid', offrampStatus: 'fiat_sent' });
  }, 120_000);
});
