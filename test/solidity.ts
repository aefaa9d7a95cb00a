import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
  const contract = compileSources({ 'Contract.sol': source }, options)['Contract.sol']?.[name];
  if (!contract) throw new Error(`${name} is not in the source`);
  return contract;
}

/**
 * Every `.sol` file of a folder compiled together, each importing the others by `./File.sol`:
 * the contract `name` of `name.sol`. The file names are part of the bytecode's metadata, so the
 * same folder always compiles to the same bytes.
 */
export function compileFolder(folder: string): (name: string) => { abi: Abi; bytecode: Hex } {
  const files = readdirSync(folder).filter((file) => file.endsWith('.sol'));
  const output = compileSources(
    Object.fromEntries(files.map((file) => [file, readFileSync(join(folder, file), 'utf8')])),
  );
  return (name) => {
    const contract = output[`${name}.sol`]?.[name];
    if (!contract) throw new Error(`${name} is not in ${folder}/${name}.sol`);
    return contract;
  };
}

function compileSources(
  sources: Record<string, string>,
  options: { viaIR?: boolean } = {},
): Record<string, Record<string, { abi: Abi; bytecode: Hex }>> {
  // Through the IR (and so with the optimizer, which it needs) for contracts whose events carry
  // more values than the legacy pipeline keeps on its stack, as Across's do.
  const pipeline = options.viaIR ? { viaIR: true, optimizer: { enabled: true, runs: 200 } } : {};
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(
      Object.entries(sources).map(([file, content]) => [file, { content }]),
    ),
    settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } }, ...pipeline },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  return Object.fromEntries(
    Object.entries(output.contracts ?? {}).map(([file, contracts]) => [
      file,
      Object.fromEntries(
        Object.entries(contracts).map(([name, contract]) => [
          name,
          { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` as Hex },
        ]),
      ),
    ]),
  );
}
