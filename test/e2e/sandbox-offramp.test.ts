import { createWalletClient, getAddress, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.ts';
import { sandboxWallets } from '../../src/sandbox/addresses.ts';
import { createService, type Service } from '../../src/service.ts';
import { LogCapture, testConfig } from '../app.ts';
import { createTenant } from '../fixtures.ts';
import { copyMigratedDatabase, freePort } from '../process.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';

/**
 * The sandbox runs crypto-to-fiat offline: the service started as `npm start` starts it (the
 * sandbox on, no OFFRAMP_URL, no COMPLIANCE_URL) runs its own fake compliance provider, which
 * approves the payer made through `/v2/payer` by itself, and its own fake off-ramp, which watches the deposit address on
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
    const tenant = await createTenant(service.database.db);
    receiver = await startReceiver();
    const headers = { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' };
    const registered = await fetch(`${base}/v1/webhook`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url }),
    });
    receiver.verifyWith(((await registered.json()) as { secret: string }).secret);

    // The payer as docs/guides/payers.md sets one up: KYC, the agreement, a bank account; the
    // sandbox's own compliance provider approves both by itself.
    const post = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, { method, headers, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const get = async (path: string) => (await fetch(`${base}${path}`, { headers })).json();
    const kyc = await post('POST', '/v2/payer', {
      clientUserId: 'user-42',
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      beneficiaryType: 'individual',
      dateOfBirth: '1990-12-10',
      addressLine1: '1 Main St',
      city: 'Springfield',
      state: 'IL',
      postcode: '62701',
      country: 'US',
      nationality: 'US',
      phone: '+15555550100',
      ssn: '000-00-0000',
    });
    expect(kyc.status, JSON.stringify(kyc.body)).toBe(200);
    const agreed = await post('PATCH', '/v2/payer/user-42', { agreementCompleted: true });
    expect(agreed.status, JSON.stringify(agreed.body)).toBe(200);
    const bank = await post('POST', '/v2/payer/user-42/payment-details', {
      bankName: 'Chase',
      accountName: 'Ada Lovelace',
      accountNumber: '123456789',
      routingNumber: '021000021',
      beneficiaryType: 'individual',
      currency: 'usd',
      addressLine1: '1 Main St',
      city: 'Springfield',
      country: 'US',
      dateOfBirth: '1990-12-10',
      postalCode: '62701',
    });
    expect(bank.status, JSON.stringify(bank.body)).toBe(201);
    const paymentDetailsId = String((bank.body.payment_detail as { id: string }).id);
    const end = Date.now() + 30_000;
    for (;;) {
      const payer = (await get('/v2/payer/user-42')) as { isCompliant?: boolean };
      const listed = (await get('/v2/payer/user-42/payment-details')) as {
        paymentDetails: { id: string; status: string }[];
      };
      const approved = listed.paymentDetails.some(
        (d) => d.id === paymentDetailsId && d.status === 'approved',
      );
      if (payer.isCompliant === true && approved) break;
      if (Date.now() > end) throw new Error(`payer never approved: ${JSON.stringify(payer)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

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
      `${base}/v2/request/${requestId}/pay?clientUserId=user-42&paymentDetailsId=${paymentDetailsId}&wallet=${wallet.address}`,
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

    // The payer's own events (compliance.updated, payment_detail.updated) come first.
    const payments = () =>
      (receiver?.received ?? []).filter((r) => String(r.body.event).startsWith('payment.'));
    const until = Date.now() + 60_000;
    while (payments().length < 6 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const events = payments().map((r) => `${r.body.event} ${r.body.subStatus}`);
    expect(receiver.received.map((r) => r.body.event)).toContain('compliance.updated');
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
