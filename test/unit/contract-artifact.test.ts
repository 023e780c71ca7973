import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import artifacts from '../../solidity/artifacts.json';
import { devnetContract, readArtifact } from '../../src/dev/contract-artifact';
import { ConfigError } from '../../src/env';

/**
 * The files DEVNET_COMPACT_ARTIFACT / DEVNET_PERMIT2_ARTIFACT name: Foundry's `out/` shape and our artifacts.json's
 * entries are read, and a file the devnet could not use is refused with a message naming the setting and the cause.
 */
let dir: string;
beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-artifact-'))));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, content: unknown) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};
const refusal = (file: string, role: 'compact' | 'permit2' = 'compact') => {
  try {
    readArtifact(file, role);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('not refused');
};

test('Foundry’s { bytecode: { object } }, our { bytecode: "0x…" } and bare hex are the same creation code', () => {
  const { abi, bytecode } = artifacts.DevnetCompact;
  const foundry = write('foundry.json', { abi, bytecode: { object: bytecode, linkReferences: {} }, ast: {} });
  const ours = write('ours.json', artifacts.DevnetCompact);
  const bare = write('bare.json', { abi, bytecode: bytecode.slice(2) });
  for (const file of [foundry, ours, bare])
    expect(readArtifact(file, 'compact')).toEqual({ role: 'compact', source: file, abi, bytecode });
  expect(readArtifact(write('permit2.json', artifacts.Permit2), 'permit2').bytecode).toBe(artifacts.Permit2.bytecode);
});

test('without the setting the devnet places ours; with it, the file (relative to the working directory)', () => {
  expect(devnetContract({}, 'compact')).toMatchObject({
    source: 'our DevnetCompact',
    abi: artifacts.DevnetCompact.abi,
  });
  expect(devnetContract({ DEVNET_PERMIT2_ARTIFACT: '' }, 'permit2').source).toBe('our Permit2');
  const file = write('relative.json', artifacts.Permit2);
  const relative = path.relative(process.cwd(), file);
  expect(devnetContract({ DEVNET_PERMIT2_ARTIFACT: relative }, 'permit2').source).toBe(file);
});

test('a missing or unreadable file, or one without abi and bytecode, is refused', () => {
  const missing = path.join(dir, 'out/Nothing.sol/Nothing.json');
  expect(refusal(missing)).toMatch(new RegExp(`^DEVNET_COMPACT_ARTIFACT: cannot read ${missing} as JSON \\(ENOENT`));
  expect(refusal(write('text.json', 'not json'))).toMatch(/^DEVNET_COMPACT_ARTIFACT: cannot read .* as JSON/);
  const { abi, bytecode } = artifacts.DevnetCompact;
  for (const shape of [{ abi }, { bytecode }, { abi: {}, bytecode }, { abi, bytecode: { object: 1 } }, null, []])
    expect(refusal(write('shape.json', shape))).toMatch(/has no "abi" array and "bytecode"/);
  // An interface's empty creation code, and a contract whose libraries are not linked.
  for (const code of ['0x', '', `${bytecode.slice(0, 40)}__$0123456789abcdef0123456789abcdef01$__`])
    expect(refusal(write('code.json', { abi, bytecode: { object: code } }), 'compact')).toMatch(
      /is not creation code \(empty, or has unlinked libraries\)/,
    );
});

test('a contract without every function the devnet calls on its role is refused, naming the missing signatures', () => {
  expect(refusal(write('permit2-as-compact.json', artifacts.Permit2), 'compact')).toBe(
    `DEVNET_COMPACT_ARTIFACT: ${path.join(dir, 'permit2-as-compact.json')} lacks what the devnet calls on the compact: ` +
      '__registerAllocator(address,bytes), ' +
      'batchMultichainClaim((bytes,bytes,address,uint256,uint256,bytes32,string,(uint256,uint256,(uint256,uint256)[])[],bytes32[])), ' +
      'depositERC20(address,bytes12,uint256,address), ' +
      'exogenousBatchClaim((bytes,bytes,address,uint256,uint256,bytes32,string,(uint256,uint256,(uint256,uint256)[])[],bytes32[],uint256,uint256)), ' +
      'exogenousClaim((bytes,bytes,address,uint256,uint256,bytes32,string,uint256,uint256,(uint256,uint256)[],bytes32[],uint256,uint256)), ' +
      'multichainClaim((bytes,bytes,address,uint256,uint256,bytes32,string,uint256,uint256,(uint256,uint256)[],bytes32[]))',
  );
  // Same name, other parameters: the devnet's call would not reach it.
  const abi = artifacts.Permit2.abi.map((item) =>
    item.name === 'permitWitnessTransferFrom' && item.inputs?.[1]?.type === 'tuple[]'
      ? { ...item, inputs: item.inputs.slice(0, -1) }
      : item,
  );
  expect(refusal(write('other-permit2.json', { abi, bytecode: artifacts.Permit2.bytecode }), 'permit2')).toMatch(
    /^DEVNET_PERMIT2_ARTIFACT: .* lacks what the devnet calls on the permit2: permitWitnessTransferFrom\(\(\(address,uint256\)\[\],uint256,uint256\),\(address,uint256\)\[\],address,bytes32,string,bytes\)$/,
  );
});
