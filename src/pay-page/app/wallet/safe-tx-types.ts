/**
 * Safe 1.3.0+'s `SafeTx`, as the Safe hashes it (docs/guides/safe.md), with the domain
 * `eth_signTypedData_v4` needs. The browser app imports only itself, so this is the page's
 * copy of what the server hashes (payments/safe/safe-tx.ts); a test keeps the two equal.
 */
export const SAFE_TX_TYPES = {
  EIP712Domain: [
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
  ],
  SafeTx: [
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
    { name: 'operation', type: 'uint8' },
    { name: 'safeTxGas', type: 'uint256' },
    { name: 'baseGas', type: 'uint256' },
    { name: 'gasPrice', type: 'uint256' },
    { name: 'gasToken', type: 'address' },
    { name: 'refundReceiver', type: 'address' },
    { name: 'nonce', type: 'uint256' },
  ],
};
