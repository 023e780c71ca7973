/**
 * Compiles solidity/*.sol with the pinned npm solc and writes solidity/artifacts.json (ABI and creation bytecode
 * per contract), which the chain indexer's tests and `npm run devnet` deploy. `npm run contracts` rebuilds it;
 * test/unit/chain-indexer.test.ts fails while the committed file differs from what the sources compile to.
 */
import fs from 'node:fs';
import path from 'node:path';
import solc from 'solc';

const dir = path.resolve(__dirname, '../../solidity');
export const ARTIFACTS_FILE = path.join(dir, 'artifacts.json');

export type Artifacts = Record<string, { abi: unknown[]; bytecode: string }>;

/** solidity/*.sol, by file name, as solc takes sources: a source beside them imports one by its name. */
export const contractSources = (): Record<string, { content: string }> =>
  Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.sol'))
      .sort()
      .map((f) => [f, { content: fs.readFileSync(path.join(dir, f), 'utf8') }]),
  );

/** Every deployable contract of `sources`, compiled as solidity/artifacts.json's are. */
export function compileSources(sources: Record<string, { content: string }>): Artifacts {
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      // No metadata hash: the bytecode depends on the sources only, so a rebuild writes the same file.
      metadata: { bytecodeHash: 'none', appendCBOR: false },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  const artifacts: Artifacts = {};
  for (const file of Object.keys(sources)) {
    const compiled = output.contracts[file] as Record<
      string,
      { abi: unknown[]; evm: { bytecode: { object: string } } }
    >;
    for (const [name, c] of Object.entries(compiled)) {
      if (c.evm.bytecode.object) artifacts[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
    }
  }
  return artifacts;
}

export const compileContracts = (): string => `${JSON.stringify(compileSources(contractSources()), null, 2)}\n`;

if (require.main === module) {
  fs.writeFileSync(ARTIFACTS_FILE, compileContracts());
  console.log(`wrote ${path.relative(process.cwd(), ARTIFACTS_FILE)}`);
}
