import {
  BaseError,
  concat,
  ContractFunctionRevertedError,
  encodeAbiParameters,
  domainSeparator as viemDomainSeparator,
  hashTypedData,
  keccak256,
  maxUint256,
  parseSignature,
  serializeCompactSignature,
  signatureToCompactSignature,
  toHex,
  type Abi,
  type Hex,
  type TypedDataDefinition,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import artifacts from '../../solidity/artifacts.json';
import { permit2WitnessCall, PERMIT2_BATCH_WITNESS_STUB } from '../../src/intents/permit2-call';
import { lockTagFor } from '../../src/chains/lock-tag';
import { tokenId } from '../../src/intents/quote';
import { MANDATE_WITNESS, PERMIT2_ADDRESS, permit2TypedData } from '../../src/intents/typed-data';
import type { Element } from '../../src/intents/types';
import { deployContract, startIndexedChain, type IndexedChain } from '../support/indexed-chain';
import { BASE_USDC, DESTINATION_OP, testElement } from '../support/test-element';

/**
 * solidity/Permit2.sol (our SignatureTransfer, placed at Permit2's canonical address) pulls an intent element's
 * tokens with the signature the client makes over permit2TypedData, from an EOA and from a DepositAccount (ERC-1271),
 * and refuses replays, other signers, expired permits and amounts above the permitted ones.
 */
const PERMIT2 = PERMIT2_ADDRESS as Hex;
const abi = artifacts.Permit2.abi as Abi;
// anvil's second default dev account, funded on every fresh chain: the element's arbiter, so Permit2's spender.
const arbiter = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const filler = privateKeyToAccount(generatePrivateKey()).address; // where the pulled tokens go
const lockTag = lockTagFor('0x000000000006e2569CaF8Ff021810790e0A0D740', 0, 6);

let chain: IndexedChain;
let chainId: number;
let usdc: Hex;
let weth: Hex;
let now: bigint;

beforeAll(async () => {
  chain = await startIndexedChain(31337);
  chainId = await chain.public.getChainId();
  const deployed = await deployContract(chain, 'Permit2');
  await chain.test.setCode({ address: PERMIT2, bytecode: (await chain.public.getCode({ address: deployed }))! });
  usdc = await deployContract(chain, 'TestToken', ['Test USD', 'TUSD', 6]);
  weth = await deployContract(chain, 'TestToken', ['Test ETH', 'TETH', 18]);
  now = (await chain.public.getBlock()).timestamp;
});
afterAll(() => chain?.local.stop());

/** An element as buildIntentOp lays out a Permit2-funded one: two wallet tokens spent on this chain. */
function element(amounts: [bigint, bigint]): Element {
  return testElement({
    arbiter: arbiter.address,
    chainId,
    idsAndAmounts: [
      [tokenId(lockTag, usdc), amounts[0].toString()],
      [tokenId(lockTag, weth), amounts[1].toString()],
    ],
    fundingMethod: 'PERMIT2',
    tokenOut: [[tokenId(lockTag, BASE_USDC), '990000']],
    fillDeadline: String(now + 600n),
    destinationOps: [DESTINATION_OP],
    settlementValue: 7n,
  });
}

const AMOUNTS: [bigint, bigint] = [1_000_000n, 10n ** 16n];

/** The signed permit of `el` and the permitWitnessTransferFrom arguments that pull `requested` to the filler. */
async function permitCall(
  el: Element,
  nonce: bigint,
  expires: bigint,
  owner: Hex,
  signer: PrivateKeyAccount,
  requested: readonly bigint[] = AMOUNTS,
) {
  const typedData = permit2TypedData(el, nonce.toString(), expires.toString()) as TypedDataDefinition;
  const signature = await signer.signTypedData(typedData);
  const { permit, witness, witnessTypeString } = permit2WitnessCall(el, nonce.toString(), expires.toString());
  const details = requested.map((requestedAmount) => ({ to: filler, requestedAmount }));
  return {
    typedData,
    permit,
    witness,
    witnessTypeString,
    args: [permit, details, owner, witness, witnessTypeString, signature],
  };
}

const call = (args: unknown[]) => chain.send(PERMIT2, 'Permit2', 'permitWitnessTransferFrom', args, arbiter.address);

/** The custom error (name and arguments) the call reverts with, as an eth_call from the arbiter. */
async function revertOf(args: unknown[]): Promise<[string | undefined, readonly unknown[] | undefined]> {
  try {
    await chain.public.simulateContract({
      account: arbiter.address,
      address: PERMIT2,
      abi,
      functionName: 'permitWitnessTransferFrom',
      args,
    });
  } catch (err) {
    const reverted = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) return [reverted.data?.errorName, reverted.data?.args ?? []];
    throw err;
  }
  throw new Error('the call did not revert');
}

const balance = (token: Hex, owner: Hex) =>
  chain.public.readContract({
    address: token,
    abi: artifacts.TestToken.abi as Abi,
    functionName: 'balanceOf',
    args: [owner],
  }) as Promise<bigint>;
const bitmap = (owner: Hex, wordPos: bigint) =>
  chain.public.readContract({
    address: PERMIT2,
    abi,
    functionName: 'nonceBitmap',
    args: [owner, wordPos],
  }) as Promise<bigint>;

async function fund(owner: Hex) {
  await chain.send(usdc, 'TestToken', 'mint', [owner, 10n * AMOUNTS[0]]);
  await chain.send(weth, 'TestToken', 'mint', [owner, 10n * AMOUNTS[1]]);
}

describe('an EOA owner', () => {
  const owner = privateKeyToAccount(generatePrivateKey());
  const nonce = (5n << 8n) | 7n; // word 5, bit 7
  let first: Awaited<ReturnType<typeof permitCall>>;

  beforeAll(async () => {
    await fund(owner.address);
    for (const token of [usdc, weth])
      await chain.send(token, 'TestToken', 'approve', [PERMIT2, maxUint256], owner.address);
    first = await permitCall(element(AMOUNTS), nonce, now + 3600n, owner.address, owner);
  });

  test('the digest Permit2 rebuilds from (permit, witness, witnessTypeString, spender) is the signed one', async () => {
    const { typedData, permit, witness, witnessTypeString } = first;
    expect(witnessTypeString).toBe(
      `Mandate mandate)Mandate(${MANDATE_WITNESS})TokenPermissions(address token,uint256 amount)`,
    );
    const domainSeparator = await chain.public.readContract({
      address: PERMIT2,
      abi,
      functionName: 'DOMAIN_SEPARATOR',
    });
    // EIP712Domain(string name,uint256 chainId,address verifyingContract): viem picks the members the domain has
    expect(domainSeparator).toBe(viemDomainSeparator({ domain: typedData.domain! }));
    const tokenPermissions = keccak256(toHex('TokenPermissions(address token,uint256 amount)'));
    const permitted = permit.permitted.map((p) =>
      keccak256(
        encodeAbiParameters(
          [{ type: 'bytes32' }, { type: 'address' }, { type: 'uint256' }],
          [tokenPermissions, p.token, p.amount],
        ),
      ),
    );
    const structHash = keccak256(
      encodeAbiParameters(
        ['bytes32', 'bytes32', 'address', 'uint256', 'uint256', 'bytes32'].map((type) => ({ type })),
        [
          keccak256(toHex(PERMIT2_BATCH_WITNESS_STUB + witnessTypeString)),
          keccak256(concat(permitted)),
          arbiter.address,
          permit.nonce,
          permit.deadline,
          witness,
        ],
      ),
    );
    expect(keccak256(concat(['0x1901', domainSeparator as Hex, structHash]))).toBe(hashTypedData(typedData));
  });

  test('(a) the arbiter pulls the permitted tokens and the nonce bit is set', async () => {
    expect(await bitmap(owner.address, 5n)).toBe(0n);
    await call(first.args);
    expect(await bitmap(owner.address, 5n)).toBe(1n << 7n);
    expect(await balance(usdc, filler)).toBe(AMOUNTS[0]);
    expect(await balance(weth, filler)).toBe(AMOUNTS[1]);
    expect(await balance(usdc, owner.address)).toBe(9n * AMOUNTS[0]);
  });

  test('(b) replaying the same call reverts InvalidNonce', async () => {
    expect(await revertOf(first.args)).toEqual(['InvalidNonce', []]);
  });

  test('(c) a signature by another key reverts InvalidSigner', async () => {
    const other = privateKeyToAccount(generatePrivateKey());
    const { args } = await permitCall(element(AMOUNTS), nonce + 1n, now + 3600n, owner.address, other);
    expect(await revertOf(args)).toEqual(['InvalidSigner', []]);
  });

  test('(d) past the deadline reverts SignatureExpired', async () => {
    const deadline = now - 1n;
    const { args } = await permitCall(element(AMOUNTS), nonce + 2n, deadline, owner.address, owner);
    expect(await revertOf(args)).toEqual(['SignatureExpired', [deadline]]);
  });

  test('(e) a requested amount above the permitted one reverts InvalidAmount', async () => {
    const { args } = await permitCall(element(AMOUNTS), nonce + 3n, now + 3600n, owner.address, owner, [
      AMOUNTS[0],
      AMOUNTS[1] + 1n,
    ]);
    expect(await revertOf(args)).toEqual(['InvalidAmount', [AMOUNTS[1]]]);
  });

  test('a 64-byte EIP-2098 signature pulls too, and a less than permitted amount (0 skips the token)', async () => {
    const { args } = await permitCall(element(AMOUNTS), nonce + 4n, now + 3600n, owner.address, owner, [
      AMOUNTS[0] / 2n,
      0n,
    ]);
    const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(args[5] as Hex)));
    const before = await balance(weth, filler);
    await call([...args.slice(0, 5), compact]);
    expect(await balance(usdc, filler)).toBe(AMOUNTS[0] + AMOUNTS[0] / 2n);
    expect(await balance(weth, filler)).toBe(before);
  });

  test('invalidateUnorderedNonces cancels a signed permit', async () => {
    const { args } = await permitCall(element(AMOUNTS), 9n << 8n, now + 3600n, owner.address, owner);
    await chain.send(PERMIT2, 'Permit2', 'invalidateUnorderedNonces', [9n, 1n], owner.address);
    expect(await bitmap(owner.address, 9n)).toBe(1n);
    expect(await revertOf(args)).toEqual(['InvalidNonce', []]);
  });
});

describe('a DepositAccount owner (ERC-1271)', () => {
  const signer = privateKeyToAccount(generatePrivateKey());
  let account: Hex;

  beforeAll(async () => {
    // The account approves Permit2 for both tokens as it is deployed: nothing is sent from the signer's key.
    account = await deployContract(chain, 'DepositAccount', [signer.address, [usdc, weth]]);
    await fund(account);
  });

  test('it approved Permit2 for max uint256 of each token it was deployed with', async () => {
    for (const token of [usdc, weth])
      expect(
        await chain.public.readContract({
          address: token,
          abi: artifacts.TestToken.abi as Abi,
          functionName: 'allowance',
          args: [account, PERMIT2],
        }),
      ).toBe(maxUint256);
  });

  test('a token without code is refused at deployment', async () => {
    const noCode = privateKeyToAccount(generatePrivateKey()).address;
    await expect(deployContract(chain, 'DepositAccount', [signer.address, [usdc, noCode]])).rejects.toThrow(
      'approve failed',
    );
  });

  test('(f) its signer signs and the arbiter pulls; another signer reverts InvalidContractSignature', async () => {
    const wrong = await permitCall(
      element(AMOUNTS),
      1n,
      now + 3600n,
      account,
      privateKeyToAccount(generatePrivateKey()),
    );
    expect(await revertOf(wrong.args)).toEqual(['InvalidContractSignature', []]);

    const before = await balance(usdc, filler);
    const { args } = await permitCall(element(AMOUNTS), 1n, now + 3600n, account, signer);
    await call(args);
    expect(await balance(usdc, filler)).toBe(before + AMOUNTS[0]);
    expect(await balance(usdc, account)).toBe(9n * AMOUNTS[0]);
    expect(await bitmap(account, 0n)).toBe(1n << 1n);
  });
});
