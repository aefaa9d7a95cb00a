import { describe, expect, it } from 'vitest';
import { evmToTron } from '../chains/tron-address.ts';
import { ConfigError, parseConfig } from './config.ts';

const EVM = '0x2546BcD3c84621e976D8185a91A922aE77ECEc30';
const TRON = evmToTron(EVM);

function refusal(env: Record<string, string>): { variable: string; message: string } {
  try {
    parseConfig(env, '/srv/payreq');
  } catch (error) {
    if (error instanceof ConfigError) return { variable: error.variable, message: error.message };
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('the protocol fee (PROTOCOL_FEE_*)', () => {
  it('is none by default, and with a bps of 0', () => {
    expect(parseConfig({}).protocolFee).toBeNull();
    expect(parseConfig({ PROTOCOL_FEE_BPS: '0' }).protocolFee).toBeNull();
  });

  it('reads every variable, USD in 8-decimal units and recipients as given', () => {
    const config = parseConfig({
      PROTOCOL_FEE_BPS: '10',
      PROTOCOL_FEE_USD_CAP: '25',
      PROTOCOL_FEE_EVM_RECIPIENT: EVM.toLowerCase(),
      PROTOCOL_FEE_TRON_RECIPIENT: TRON,
      PROTOCOL_FEE_TRON_SPONSORSHIP_USD: '3.99',
    });
    expect(config.protocolFee).toEqual({
      bps: 10,
      usdCap: 2_500_000_000n,
      evmRecipient: EVM.toLowerCase(),
      tronRecipient: TRON,
      tronSponsorshipUsd: 399_000_000n,
    });
  });

  it('takes a Tron sponsorship fee alone, and one network’s recipient alone', () => {
    expect(
      parseConfig({
        PROTOCOL_FEE_TRON_RECIPIENT: TRON,
        PROTOCOL_FEE_TRON_SPONSORSHIP_USD: '3.99',
      }).protocolFee,
    ).toEqual({
      bps: 0,
      usdCap: null,
      evmRecipient: null,
      tronRecipient: TRON,
      tronSponsorshipUsd: 399_000_000n,
    });
    expect(
      parseConfig({ PROTOCOL_FEE_BPS: '5', PROTOCOL_FEE_EVM_RECIPIENT: EVM }).protocolFee,
    ).toMatchObject({ bps: 5, evmRecipient: EVM, tronRecipient: null });
  });

  it('stops the start on a bad or incomplete setting, naming the variable', () => {
    expect(refusal({ PROTOCOL_FEE_BPS: '10' })).toEqual({
      variable: 'PROTOCOL_FEE_BPS',
      message:
        'PROTOCOL_FEE_BPS needs a recipient: set PROTOCOL_FEE_EVM_RECIPIENT and/or PROTOCOL_FEE_TRON_RECIPIENT',
    });
    expect(refusal({ PROTOCOL_FEE_BPS: '10001', PROTOCOL_FEE_EVM_RECIPIENT: EVM }).variable).toBe(
      'PROTOCOL_FEE_BPS',
    );
    expect(refusal({ PROTOCOL_FEE_BPS: '1.5', PROTOCOL_FEE_EVM_RECIPIENT: EVM }).variable).toBe(
      'PROTOCOL_FEE_BPS',
    );
    expect(refusal({ PROTOCOL_FEE_BPS: '10', PROTOCOL_FEE_EVM_RECIPIENT: TRON })).toEqual({
      variable: 'PROTOCOL_FEE_EVM_RECIPIENT',
      message: `PROTOCOL_FEE_EVM_RECIPIENT must be an EVM address (0x followed by 40 hex digits) (got "${TRON}")`,
    });
    expect(refusal({ PROTOCOL_FEE_BPS: '10', PROTOCOL_FEE_TRON_RECIPIENT: EVM }).variable).toBe(
      'PROTOCOL_FEE_TRON_RECIPIENT',
    );
    expect(
      refusal({ PROTOCOL_FEE_BPS: '10', PROTOCOL_FEE_EVM_RECIPIENT: `0x${'0'.repeat(40)}` })
        .variable,
    ).toBe('PROTOCOL_FEE_EVM_RECIPIENT');
    expect(
      refusal({
        PROTOCOL_FEE_BPS: '10',
        PROTOCOL_FEE_EVM_RECIPIENT: EVM,
        PROTOCOL_FEE_USD_CAP: '-1',
      }).variable,
    ).toBe('PROTOCOL_FEE_USD_CAP');
    expect(refusal({ PROTOCOL_FEE_USD_CAP: '5' })).toEqual({
      variable: 'PROTOCOL_FEE_USD_CAP',
      message: 'PROTOCOL_FEE_USD_CAP caps a fee: set PROTOCOL_FEE_BPS above 0',
    });
    expect(refusal({ PROTOCOL_FEE_TRON_SPONSORSHIP_USD: '3.99' })).toEqual({
      variable: 'PROTOCOL_FEE_TRON_SPONSORSHIP_USD',
      message:
        'PROTOCOL_FEE_TRON_SPONSORSHIP_USD needs a recipient: set PROTOCOL_FEE_TRON_RECIPIENT',
    });
    expect(
      refusal({
        PROTOCOL_FEE_TRON_RECIPIENT: TRON,
        PROTOCOL_FEE_TRON_SPONSORSHIP_USD: '3.999999999',
      }).variable,
    ).toBe('PROTOCOL_FEE_TRON_SPONSORSHIP_USD');
  });
});
