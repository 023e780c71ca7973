import fs from 'node:fs';
import path from 'node:path';
import { hashTypedData, type TypedDataDefinition } from 'viem';
import {
  registerAccountTypedData,
  releaseAccountTypedData,
  sessionTypedData,
  withdrawTypedData,
} from '../../src/deposits/session-digest';

/**
 * What accounts and owners sign for the deposit processor, pinned to the type strings and domain the docs publish
 * (docs/deposit-processor.md): a change to the builders that the docs do not make is a change of what a client must
 * sign, and fails here. The expected digests are built from the docs' text, not from the builders.
 */
// Lines folded as the docs wrap them: compared with single spaces.
const DOCS = fs.readFileSync(path.join(__dirname, '../../docs/deposit-processor.md'), 'utf8').replace(/\s+/g, ' ');
const ACCOUNT = '0x00000000000000000000000000000000000000aa';
const SIGNER = '0x00000000000000000000000000000000000000bb';
const DOMAIN = { name: 'Deposit Processor', version: '1', chainId: 8453, verifyingContract: SIGNER } as const;

/** The fields of a type string as EIP-712 lists them: `Name(type name,…)`. */
const fieldsOf = (typeString: string) =>
  typeString
    .slice(typeString.indexOf('(') + 1, -1)
    .split(',')
    .map((member) => {
      const [type, name] = member.trim().split(' ');
      return { name, type };
    });

const digestFromDocs = (
  primaryType: string,
  typeStrings: string[],
  message: Record<string, unknown>,
): `0x${string}` => {
  for (const t of typeStrings) expect(DOCS).toContain(t);
  const types = Object.fromEntries(typeStrings.map((t) => [t.slice(0, t.indexOf('(')), fieldsOf(t)]));
  return hashTypedData({ domain: DOMAIN, types, primaryType, message } as unknown as TypedDataDefinition);
};

test('RegisterAccount and ReleaseAccount are the documented type strings on the documented domain', () => {
  const proof = { nonce: '1764000000000', deadline: '1900000000' };
  const message = { account: ACCOUNT, sessionSigner: SIGNER, nonce: 1764000000000n, deadline: 1900000000n };
  for (const [name, build] of [
    ['RegisterAccount', registerAccountTypedData],
    ['ReleaseAccount', releaseAccountTypedData],
  ] as const) {
    const typeString = `${name}(address account, address sessionSigner, uint256 nonce, uint256 deadline)`;
    expect(hashTypedData(build(ACCOUNT, 8453, SIGNER, proof))).toBe(digestFromDocs(name, [typeString], message));
  }
  expect(DOCS).toContain(
    'domain `{name: "Deposit Processor", version: "1", chainId: <target chain id>, verifyingContract: <the project\'s sessionSigner>}`',
  );
});

test('the session digest and the withdrawal are the documented type strings', () => {
  const sessions = [{ chainId: 8453, sessionDigest: `0x${'11'.repeat(32)}` as const }];
  expect(hashTypedData(sessionTypedData(ACCOUNT, 8453, { hashesAndChainIds: sessions }, SIGNER))).toBe(
    digestFromDocs(
      'EnableSessions',
      [
        'EnableSessions(address account, ChainSession[] sessions)',
        'ChainSession(uint256 chainId, bytes32 sessionDigest)',
      ],
      { account: ACCOUNT, sessions: [{ chainId: 8453n, sessionDigest: sessions[0].sessionDigest }] },
    ),
  );
  const w = { account: ACCOUNT, token: ACCOUNT, amount: '5', recipient: SIGNER, nonce: '7', deadline: '1900000000' };
  expect(hashTypedData(withdrawTypedData(w, 8453, SIGNER))).toBe(
    digestFromDocs(
      'Withdraw',
      ['Withdraw(address account, address token, uint256 amount, address recipient, uint256 nonce, uint256 deadline)'],
      { account: ACCOUNT, token: ACCOUNT, amount: 5n, recipient: SIGNER, nonce: 7n, deadline: 1900000000n },
    ),
  );
});
