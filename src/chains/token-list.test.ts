import { describe, expect, it } from 'vitest';
import { readTokenListFile } from '../../test/token-list.ts';
import { tokenListEntries } from './listed.ts';
import { TOKEN_LIST_VERSION } from './token-list.ts';

describe('the shipped token list (src/chains/token-list.ts)', () => {
  const file = readTokenListFile();

  it('is Request’s token list file, entry for entry and field for field (else run scripts/build-token-list.ts)', () => {
    const { major, minor, patch } = file.version;
    expect(TOKEN_LIST_VERSION).toBe(`${major}.${minor}.${patch}`);
    expect(tokenListEntries()).toEqual(file.tokens);
    expect(file.tokens).toHaveLength(744);
    expect(new Set(file.tokens.map((token) => token.network)).size).toBe(21);
  });
});
