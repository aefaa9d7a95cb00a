import { describe, expect, it } from 'vitest';
import type { Eip1193Provider } from './chain.ts';
import { answerJsonRpc } from './json-rpc.ts';

/** A provider that answers every method with its name, to see what reaches it. */
const echo = {
  request: async ({ method }: { method: string }) => method,
} as unknown as Eip1193Provider;

describe('the sandbox JSON-RPC', () => {
  it('answers a browser page’s reads, raw transactions and mining', async () => {
    for (const method of ['eth_chainId', 'eth_call', 'eth_sendRawTransaction', 'evm_mine']) {
      expect(await answerJsonRpc(echo, { id: 1, method }, { fromBrowser: true })).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: method,
      });
    }
  });

  it('keeps the unlocked test accounts and chain rewrites from browser pages', async () => {
    for (const method of [
      'eth_sendTransaction',
      'eth_sign',
      'eth_signTypedData_v4',
      'personal_sign',
      'evm_revert',
      'evm_snapshot',
      'hardhat_setBalance',
      'debug_traceTransaction',
      'sandbox_setRate',
    ]) {
      const answer = (await answerJsonRpc(echo, { id: 2, method }, { fromBrowser: true })) as {
        error?: { code: number };
      };
      expect(answer.error?.code, method).toBe(-32601);
      // A script (no Origin) may.
      expect(await answerJsonRpc(echo, { id: 2, method })).toMatchObject({ result: method });
    }
  });
});
