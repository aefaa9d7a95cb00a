import { describe, expect, it } from 'vitest';
import { nodeText } from './tron-node-text.ts';

describe('nodeText', () => {
  it('decodes the hex text full nodes send as a refusal message', () => {
    expect(nodeText(Buffer.from('validate signature error').toString('hex'))).toBe(
      'validate signature error',
    );
  });

  it('passes plain text on, with control characters blanked and the length capped', () => {
    expect(nodeText('balance is not sufficient\u0000\n')).toBe('balance is not sufficient');
    expect(nodeText('x'.repeat(400))).toBe(`${'x'.repeat(300)}…`);
  });
});
