import Papa from 'papaparse';

/**
 * A list of recipients, pasted or read from a CSV file (`payee,amount,token` per line; a
 * header line is skipped), checked line by line before anything is sent to payreq: every
 * line's problems, or the payouts to make. The fields are read by papaparse: commas, tabs (cells
 * pasted from a spreadsheet) or semicolons (as spreadsheets save where the decimal mark is a
 * comma: then "12,5" is twelve and a half), quotes and all.
 */

export interface PayoutLine {
  /** The line's number in the text, as a spreadsheet counts it (from 1). */
  readonly line: number;
  readonly payee: string;
  readonly amount: string;
  readonly token: string;
  /** What is wrong with it; empty when nothing is. */
  readonly problems: readonly string[];
}

/** The most payouts one batch transaction pays (api-facts §15). */
const MAX_PAYOUTS = 200;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const AMOUNT = /^(?:\d+(?:\.\d*)?|\.\d+)$/;
/**
 * The text's payouts, each with its problems. `tokens` are those the chosen network pays in,
 * named by symbol (USDC) or id (USDC-base), whatever the case.
 */
export function readPayouts(
  text: string,
  tokens: readonly { readonly symbol: string; readonly id: string }[],
): PayoutLine[] {
  const known = new Map(
    tokens.flatMap((token) => [
      [token.symbol.toUpperCase(), token.symbol],
      [token.id.toUpperCase(), token.symbol],
    ]),
  );
  // Trailing blank lines only: a leading one still counts, so line numbers stay the text's.
  // One kind of line end (a paste may mix a file's CRLF with the editor's LF).
  const lines = text.replace(/\r\n?/g, '\n').replace(/\s+$/, '');
  const parsed = Papa.parse<string[]>(lines, { newline: '\n', skipEmptyLines: false });
  const semicolons = parsed.meta.delimiter === ';';
  const payouts: PayoutLine[] = [];
  parsed.data.forEach((row, index) => {
    const fields = row.map((field) => field.trim());
    if (fields.every((field) => field === '')) return;
    const [payee = '', rawAmount = '', token = ''] = fields;
    // A decimal comma, in a file separated by semicolons.
    const amount = semicolons ? rawAmount.replace(',', '.') : rawAmount;
    // The first line, when it names its columns (payee, amount, token; to, amount, currency).
    if (payouts.length === 0 && !/^0x/i.test(payee) && !AMOUNT.test(amount)) return;
    // "0x…,12,5,USDC": an amount written with a comma (decimal, or a thousands separator).
    if (fields.length === 4 && /^\d+$/.test(rawAmount) && /^\d+$/.test(fields[2] ?? '')) {
      const problem = 'amount has a comma: write 12.5 for twelve and a half, 1000 for a thousand';
      payouts.push({ line: index + 1, payee, amount, token: fields[3] ?? '', problems: [problem] });
      return;
    }
    const problems: string[] = [];
    if (fields.length !== 3) {
      problems.push(`has ${fields.length} fields, not 3 (payee, amount, token)`);
    }
    if (!ADDRESS.test(payee)) problems.push('payee is not a wallet address (0x and 40 hex digits)');
    if (amount.includes(',')) {
      problems.push('amount has a comma: write 12.5 for twelve and a half, 1000 for a thousand');
    } else if (!AMOUNT.test(amount) || !/[1-9]/.test(amount)) {
      problems.push('amount is not a number above 0 (write 12.5, not 12,5 or $12.50)');
    }
    const symbol = known.get(token.toUpperCase());
    if (symbol === undefined)
      problems.push(`token ${token === '' ? '(none)' : token} is not paid on this network`);
    payouts.push({ line: index + 1, payee, amount, token: symbol ?? token, problems });
  });
  return payouts;
}

/** What stops the payouts being made, if anything: none at all, too many, or a bad line. */
export function refusalOf(payouts: readonly PayoutLine[]): string | null {
  if (payouts.length === 0) return 'Write one payout per line: payee, amount, token.';
  if (payouts.length > MAX_PAYOUTS) {
    return `${payouts.length} payouts: one transaction pays at most ${MAX_PAYOUTS}. Split the list.`;
  }
  const bad = payouts.filter((payout) => payout.problems.length > 0);
  if (bad.length === 0) return null;
  return `Nothing was created: ${bad.length === 1 ? 'line' : 'lines'} ${bad.map((b) => b.line).join(', ')} ${bad.length === 1 ? 'needs' : 'need'} fixing.`;
}
