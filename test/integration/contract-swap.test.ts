import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createWalletClient,
  domainSeparator,
  getContractAddress,
  http,
  maxUint256,
  type Abi,
  type Hex,
  type TypedDataDefinition,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import artifacts from '../../solidity/artifacts.json';
import { lockTagFor } from '../../src/chains/lock-tag';
import { compactAddress } from '../../src/compact/config';
import { compactDomain } from '../../src/compact/eip712';
import { compileSources, contractSources } from '../../src/dev/build-contracts';
import { compactClaimPayload } from '../../src/relayer-bot/claim-payload';
import {
  checkDomain,
  devnetContract,
  placeContract,
  type ChainClients,
  type DevnetContract,
} from '../../src/dev/contract-artifact';
import { ConfigError } from '../../src/env';
import { authorizeClaim, type CompactClaim } from '../../src/intents/claim-authorization';
import { permit2WitnessCall } from '../../src/intents/permit2-call';
import { tokenId } from '../../src/intents/quote';
import { compactTypedData, PERMIT2_ADDRESS, permit2TypedData } from '../../src/intents/typed-data';
import type { Element, IntentOp } from '../../src/intents/types';
import { deployContract, deposit, fundDeposits, startIndexedChain, type IndexedChain } from '../support/indexed-chain';
import { BASE_USDC, testElement } from '../support/test-element';

/**
 * The devnet's swap-in (DEVNET_COMPACT_ARTIFACT, DEVNET_PERMIT2_ARTIFACT, src/dev/contract-artifact.ts) with
 * contracts that, like the real ones, fix their domain separator in their constructor: ours, extended here by a
 * constructor that caches DOMAIN_SEPARATOR() in an immutable, writes storage and creates a contract, compiled at test
 * time and written out as a Foundry `out/X.sol/X.json` (the compact) and as an entry of our artifacts.json (Permit2).
 * Placed where the devnet places them, they answer that address's domain, keep what their constructor stored, and
 * take a deposit and pay a claim, or a Permit2 pull, signed in that domain; created elsewhere and copied, they fail
 * the devnet's domain check. A constructor that reverts stops the placement.
 */
const FIXTURE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import "DevnetCompact.sol";
import "Permit2.sol";

contract Created {}

contract ConstructedCompact is DevnetCompact {
    bytes32 private immutable cachedDomain;
    address public immutable created;
    address public constructedBy;

    constructor() {
        cachedDomain = super.DOMAIN_SEPARATOR();
        created = address(new Created());
        constructedBy = msg.sender;
    }

    function DOMAIN_SEPARATOR() public view override returns (bytes32) {
        return cachedDomain;
    }
}

contract Unconstructible is Permit2 {
    constructor() {
        revert("not here");
    }
}

contract ConstructedPermit2 is Permit2 {
    bytes32 private immutable cachedDomain;

    constructor() {
        cachedDomain = super.DOMAIN_SEPARATOR();
    }

    function DOMAIN_SEPARATOR() public view override returns (bytes32) {
        return cachedDomain;
    }
}
`;
const COMPACT = compactAddress({}) as Hex;
const PERMIT2 = PERMIT2_ADDRESS as Hex;
// anvil's second default dev account, funded on every fresh chain: the elements' arbiter.
const arbiter = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const allocatorKey = privateKeyToAccount(generatePrivateKey());

let chain: IndexedChain;
let clients: ChainClients;
let chainId: number;
let dir: string;
let compact: DevnetContract;
let permit2: DevnetContract;
let unconstructible: DevnetContract;
let usdc: Hex;

beforeAll(async () => {
  const { 'DevnetCompact.sol': devnetCompact, 'Permit2.sol': ours, 'Signatures.sol': signatures } = contractSources();
  const built = compileSources({
    'DevnetCompact.sol': devnetCompact,
    'Permit2.sol': ours,
    'Signatures.sol': signatures,
    'Constructed.sol': { content: FIXTURE },
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-swap-'));
  const foundry = path.join(dir, 'out/ConstructedCompact.sol/ConstructedCompact.json');
  fs.mkdirSync(path.dirname(foundry), { recursive: true });
  const { abi, bytecode } = built.ConstructedCompact;
  fs.writeFileSync(foundry, JSON.stringify({ abi, bytecode: { object: bytecode, linkReferences: {} } }));
  fs.writeFileSync(path.join(dir, 'permit2.json'), JSON.stringify(built.ConstructedPermit2));
  const env = { DEVNET_COMPACT_ARTIFACT: foundry, DEVNET_PERMIT2_ARTIFACT: path.join(dir, 'permit2.json') };
  compact = devnetContract(env, 'compact');
  permit2 = devnetContract(env, 'permit2');
  fs.writeFileSync(path.join(dir, 'unconstructible.json'), JSON.stringify(built.Unconstructible));
  unconstructible = devnetContract({ DEVNET_PERMIT2_ARTIFACT: path.join(dir, 'unconstructible.json') }, 'permit2');

  chain = await startIndexedChain(31337);
  chainId = await chain.public.getChainId();
  const wallet = createWalletClient({ account: chain.sender, transport: http(chain.local.url) });
  clients = { public: chain.public, test: chain.test, wallet };
  usdc = await deployContract(chain, 'TestToken', ['Test USD', 'TUSD', 6]);
}, 60_000);
afterAll(async () => {
  await chain?.local.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const read = (address: Hex, abi: Abi, functionName: string, args: unknown[] = []) =>
  chain.public.readContract({ address, abi, functionName, args }) as Promise<unknown>;
const tokenBalance = (owner: Hex) => read(usdc, artifacts.TestToken.abi as Abi, 'balanceOf', [owner]);

function element(lockTag: Hex, amount: bigint, fundingMethod: 'COMPACT' | 'PERMIT2'): Element {
  return testElement({
    arbiter: arbiter.address,
    chainId,
    idsAndAmounts: [[tokenId(lockTag, usdc), amount.toString()]],
    fundingMethod,
    tokenOut: [[tokenId(lockTag, BASE_USDC), '990000']],
    ...(fundingMethod === 'PERMIT2' ? { settlementValue: 7n } : {}),
  });
}

test('the compact of a Foundry artifact is constructed at COMPACT_ADDRESS: its domain, storage and creations are that address’s, and a claim signed there pays', async () => {
  await placeContract(clients, COMPACT, compact);
  expect(await read(COMPACT, compact.abi, 'DOMAIN_SEPARATOR')).toBe(
    domainSeparator({ domain: compactDomain(chainId, COMPACT) }),
  );
  expect(await read(COMPACT, compact.abi, 'constructedBy')).toBe(chain.sender.address);
  // Created at the nonce a new contract's first creation has (The Compact finds its metadata renderer so).
  const created = (await read(COMPACT, compact.abi, 'created')) as Hex;
  expect(created).toBe(getContractAddress({ from: COMPACT, nonce: 1n }));
  expect(await chain.public.getCode({ address: created })).toMatch(/^0x[0-9a-f]+$/);
  expect((await chain.public.getCode({ address: COMPACT }))!.length).toBeGreaterThan(2);

  const allocator = await deployContract(chain, 'SignerAllocator', [allocatorKey.address, COMPACT]);
  await chain.send(COMPACT, 'DevnetCompact', '__registerAllocator', [allocator, '0x']);
  const lockTag = lockTagFor(allocator, 0, 6);
  const sponsor = privateKeyToAccount(generatePrivateKey());
  await fundDeposits(chain, COMPACT, usdc);
  await deposit(chain, COMPACT, lockTag, usdc, sponsor.address, 2_000_000n);
  const op: IntentOp = {
    sponsor: sponsor.address,
    nonce: '1',
    targetExecutionNonce: '0',
    expires: String((await chain.public.getBlock()).timestamp + 3600n),
    elements: [element(lockTag, 2_000_000n, 'COMPACT')],
    serverSignature: '0x',
    signedMetadata: {},
  };
  const signature = await sponsor.signTypedData(compactTypedData(op, COMPACT));
  const auth = await authorizeClaim(
    {
      id: op.nonce,
      operation: op,
      signatures: { originSignatures: [signature], destinationSignature: signature },
      expired: false,
      fill: null,
      heldChainIds: [chainId],
    },
    { compact: COMPACT, allocator: allocatorKey },
  );
  const c = auth.elements[0] as CompactClaim;
  const filler = privateKeyToAccount(generatePrivateKey()).address;
  const payload = compactClaimPayload(op, c, (_, amount) => [{ claimant: BigInt(filler), amount }]);
  await chain.send(COMPACT, 'DevnetCompact', c.claim, [payload], arbiter.address);
  expect(await tokenBalance(filler)).toBe(2_000_000n);
});

test('Permit2 of an artifacts.json entry is constructed at its address and pulls what is signed in its domain', async () => {
  await placeContract(clients, PERMIT2, permit2);
  expect(await read(PERMIT2, permit2.abi, 'DOMAIN_SEPARATOR')).toBe(
    domainSeparator({ domain: { name: 'Permit2', chainId, verifyingContract: PERMIT2 } }),
  );
  const owner = privateKeyToAccount(generatePrivateKey());
  await chain.send(usdc, 'TestToken', 'mint', [owner.address, 1_000_000n]);
  await chain.send(usdc, 'TestToken', 'approve', [PERMIT2, maxUint256], owner.address);
  const el = element(lockTagFor(allocatorKey.address, 0, 6), 1_000_000n, 'PERMIT2');
  const deadline = ((await chain.public.getBlock()).timestamp + 3600n).toString();
  const signature = await owner.signTypedData(permit2TypedData(el, '1', deadline) as TypedDataDefinition);
  const { permit, witness, witnessTypeString } = permit2WitnessCall(el, '1', deadline);
  const filler = privateKeyToAccount(generatePrivateKey()).address;
  const details = [{ to: filler, requestedAmount: 1_000_000n }];
  await chain.send(
    PERMIT2,
    'Permit2',
    'permitWitnessTransferFrom',
    [permit, details, owner.address, witness, witnessTypeString, signature],
    arbiter.address,
  );
  expect(await tokenBalance(filler)).toBe(1_000_000n);
});

test("created elsewhere and its runtime code copied, the contract keeps its creator's domain: the devnet's check refuses it", async () => {
  const hash = await clients.wallet.deployContract({ chain: null, abi: permit2.abi, bytecode: permit2.bytecode });
  const created = (await chain.public.waitForTransactionReceipt({ hash })).contractAddress!;
  const copy = privateKeyToAccount(generatePrivateKey()).address;
  await chain.test.setCode({ address: copy, bytecode: (await chain.public.getCode({ address: created }))! });
  await expect(checkDomain(clients, created, permit2)).resolves.toBeUndefined();
  const refused = checkDomain(clients, copy, permit2);
  await expect(refused).rejects.toThrow(ConfigError);
  await expect(refused).rejects.toThrow(`at ${copy} answers DOMAIN_SEPARATOR()`);
});

test('a constructor that reverts at the address stops the placement, naming the file and the reason', async () => {
  const address = privateKeyToAccount(generatePrivateKey()).address;
  const placed = placeContract(clients, address, unconstructible);
  await expect(placed).rejects.toThrow(ConfigError);
  await expect(placed).rejects.toThrow(
    new RegExp(`^${unconstructible.source}: its constructor reverted at ${address} \\(.*not here`),
  );
});
