import { describe, expect, it } from 'vitest';
import { readPayouts, refusalOf } from './payout-csv.ts';

const A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const TOKENS = [
  { symbol: 'USDC', id: 'USDC-base' },
  { symbol: 'ETH', id: 'ETH-base' },
];

describe('readPayouts', () => {
  it('reads lines, skipping a header and blank lines, matching tokens whatever their case', () => {
    const payouts = readPayouts(
      `payee,amount,token\r\n${A},12.5,usdc\n\n"${B}", 0.01 ,ETH\n`,
      TOKENS,
    );
    expect(payouts).toEqual([
      { line: 2, payee: A, amount: '12.5', token: 'USDC', problems: [] },
      { line: 4, payee: B, amount: '0.01', token: 'ETH', problems: [] },
    ]);
    expect(refusalOf(payouts)).toBeNull();
  });

  it('says what is wrong with each bad line, and that nothing is made', () => {
    const payouts = readPayouts(
      [`${A},12.5,USDC`, '0x1234,1,USDC', `${B},12,5,USDC`, `${A},0,DOGE`].join('\n'),
      TOKENS,
    );
    expect(payouts.map((p) => [p.line, p.problems])).toEqual([
      [1, []],
      [2, ['payee is not a wallet address (0x and 40 hex digits)']],
      [3, ['amount has a comma: write 12.5 for twelve and a half, 1000 for a thousand']],
      [
        4,
        [
          'amount is not a number above 0 (write 12.5, not 12,5 or $12.50)',
          'token DOGE is not paid on this network',
        ],
      ],
    ]);
    expect(refusalOf(payouts)).toBe('Nothing was created: lines 2, 3, 4 need fixing.');
  });

  it('reads a file separated by semicolons, with decimal commas, and any header', () => {
    const payouts = readPayouts(`to;amount;currency\n${A};12,5;USDC\n${B};1;usdc;extra`, TOKENS);
    expect(payouts.map((p) => [p.line, p.amount, p.problems])).toEqual([
      [2, '12.5', []],
      [3, '1', ['has 4 fields, not 3 (payee, amount, token)']],
    ]);
  });

  it('reads cells pasted from a spreadsheet, quoted fields and tokens by id', () => {
    const payouts = readPayouts(`${A}\t12.5\tUSDC\n${B}\t1\tusdc-base`, TOKENS);
    expect(payouts.map((p) => [p.line, p.amount, p.token, p.problems])).toEqual([
      [1, '12.5', 'USDC', []],
      [2, '1', 'USDC', []],
    ]);
    const quoted = readPayouts(`${A},"12,5",USDC\n${B},"1,000",ETH`, TOKENS);
    expect(quoted.map((p) => p.problems)).toEqual([
      ['amount has a comma: write 12.5 for twelve and a half, 1000 for a thousand'],
      ['amount has a comma: write 12.5 for twelve and a half, 1000 for a thousand'],
    ]);
  });

  it('refuses an empty list and one too long for a transaction', () => {
    expect(refusalOf(readPayouts(' \n', TOKENS))).toBe(
      'Write one payout per line: payee, amount, token.',
    );
    const many = Array.from({ length: 201 }, () => `${A},1,USDC`).join('\n');
    expect(refusalOf(readPayouts(many, TOKENS))).toBe(
      '201 payouts: one transaction pays at most 200. Split the list.',
    );
  });
});
