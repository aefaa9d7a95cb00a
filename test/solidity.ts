import solc from 'solc';
import type { Abi, Hex } from 'viem';

/**
 * Compiles Solidity in the test process with the `solc` package (offline, no download), for
 * contracts no registry package ships: stand-ins the tests need and contracts written to a
 * specification.
 */
export function compileContract(
  source: string,
  name: string,
  options: { viaIR?: boolean } = {},
): { abi: Abi; bytecode: Hex } {
  // Through the IR (and so with the optimizer, which it needs) for contracts whose events carry
  // more values than the legacy pipeline keeps on its stack, as Across's do.
  const pipeline = options.viaIR ? { viaIR: true, optimizer: { enabled: true, runs: 200 } } : {};
  const input = {
    language: 'Solidity',
    sources: { 'Contract.sol': { content: source } },
    settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } }, ...pipeline },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contract = output.contracts?.['Contract.sol']?.[name];
  if (!contract) throw new Error(`${name} is not in the source`);
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}
