import { describe, expect, it } from 'vitest';
import { csvField, csvRecord } from './csv.ts';

describe('csvField', () => {
  it.each([
    ['plain', 'order-1', 'order-1'],
    ['empty', '', ''],
    ['null', null, ''],
    ['a comma', 'a,b', '"a,b"'],
    ['a quote', 'say "hi"', '"say ""hi"""'],
    ['a line break', 'a\nb', '"a\nb"'],
    ['a CRLF', 'a\r\nb', '"a\r\nb"'],
    ['a formula', '=HYPERLINK("http://x")', `"'=HYPERLINK(""http://x"")"`],
    ['a plus', '+1', "'+1"],
    ['a minus', '-2+3', "'-2+3"],
    ['an at', '@SUM(A1)', "'@SUM(A1)"],
    ['a leading tab', '\t=1', "'\t=1"],
    ['a leading carriage return', '\r=1', `"'\r=1"`],
    ['an = inside', 'a=b', 'a=b'],
    ['an address', '0xAbC', '0xAbC'],
  ])('writes %s as a field', (_name, value, expected) => {
    expect(csvField(value)).toBe(expected);
  });
});

describe('csvRecord', () => {
  it('joins fields by commas and ends the record with CRLF', () => {
    expect(csvRecord(['a', null, 'b,c'])).toBe('a,,"b,c"\r\n');
  });
});
