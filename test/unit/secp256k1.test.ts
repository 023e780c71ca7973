import { hashMessage, hashTypedData, keccak256, recoverAddress, toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { fastAccount, recoverSigner } from '../../src/signatures/secp256k1';

const typedData = {
  domain: { name: 'IntentOrchestrator', version: '1', chainId: 8453 },
  types: {
    Note: [
      { name: 'who', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
  },
  primaryType: 'Note',
  message: { who: '0x000000000000000000000000000000000000dEaD', amount: 12345n },
} as const;

test('libsecp256k1 signs the same bytes as viem (hash, message, typed data) for many keys', async () => {
  for (let i = 0; i < 25; i++) {
    const key = generatePrivateKey();
    const slow = privateKeyToAccount(key);
    const fast = fastAccount(key);
    const hash = keccak256(toHex(`message ${i}`));
    expect(fast.address).toBe(slow.address);
    expect(await fast.sign!({ hash })).toBe(await slow.sign({ hash }));
    expect(await fast.signMessage({ message: `hello ${i}` })).toBe(await slow.signMessage({ message: `hello ${i}` }));
    expect(await fast.signTypedData(typedData)).toBe(await slow.signTypedData(typedData));
  }
});

test("recovery agrees with viem for v = 27/28 and 0/1, and other forms are viem's own answer", async () => {
  for (let i = 0; i < 25; i++) {
    const account = privateKeyToAccount(generatePrivateKey());
    const hash = hashMessage(`note ${i}`);
    const sig = await account.sign({ hash });
    expect(await recoverSigner(hash, sig)).toBe(account.address);
    const yParity = parseInt(sig.slice(130), 16) - 27;
    expect(await recoverSigner(hash, `${sig.slice(0, 130)}0${yParity}` as Hex)).toBe(account.address);
    const compact =
      `${sig.slice(0, 66)}${(BigInt(`0x${sig.slice(66, 130)}`) | (BigInt(yParity) << 255n)).toString(16).padStart(64, '0')}` as Hex;
    const outcome = (p: Promise<unknown>) =>
      p.then(
        (v) => ({ v }),
        (e: Error) => ({ e: e.message }),
      );
    expect(await outcome(recoverSigner(hash, compact))).toEqual(
      await outcome(recoverAddress({ hash, signature: compact })),
    );
  }
  expect(
    await recoverSigner(hashTypedData(typedData), await fastAccount(generatePrivateKey()).signTypedData(typedData)),
  ).toMatch(/^0x[0-9a-fA-F]{40}$/);
});

test('a malformed signature throws, as viem does, and a wrong hash recovers someone else', async () => {
  const account = privateKeyToAccount(generatePrivateKey());
  const hash = keccak256(toHex('x'));
  const sig = await account.sign({ hash });
  await expect(recoverSigner(hash, `0x${'00'.repeat(64)}1b`)).rejects.toThrow();
  await expect(recoverSigner(hash, `0x${'ff'.repeat(64)}1b`)).rejects.toThrow();
  await expect(recoverSigner(hash, '0x1234')).rejects.toThrow();
  expect(await recoverSigner(keccak256(toHex('y')), sig)).not.toBe(account.address);
});

/** The platforms `secp256k1` ships a prebuilt addon for (docs/dependencies.md); elsewhere only the fallback runs. */
const addonShips = ['linux-x64', 'darwin-arm64', 'win32-x64'].includes(`${process.platform}-${process.arch}`);

(addonShips ? test : test.skip)('where the addon ships, signatures and recoveries go through it', async () => {
  const real: typeof import('secp256k1') = jest.requireActual('secp256k1/bindings');
  const addon = { ecdsaSign: jest.fn(real.ecdsaSign), ecdsaRecover: jest.fn(real.ecdsaRecover) };
  let withAddon!: typeof import('../../src/signatures/secp256k1');
  jest.isolateModules(() => {
    jest.doMock('secp256k1/bindings', () => addon);
    withAddon = require('../../src/signatures/secp256k1'); // eslint-disable-line @typescript-eslint/no-require-imports
  });
  const key = generatePrivateKey();
  const hash = keccak256(toHex('native'));
  const sig = await withAddon.fastAccount(key).sign!({ hash });
  expect(await withAddon.recoverSigner(hash, sig)).toBe(privateKeyToAccount(key).address);
  expect([addon.ecdsaSign.mock.calls.length, addon.ecdsaRecover.mock.calls.length]).toEqual([1, 1]);
});

test("where no native addon loads, viem's own curve signs and recovers the same bytes", async () => {
  let viemOnly!: typeof import('../../src/signatures/secp256k1');
  const noAddon = jest.fn(() => {
    throw new Error('no prebuilt addon for this platform');
  });
  jest.isolateModules(() => {
    jest.doMock('secp256k1/bindings', noAddon);
    viemOnly = require('../../src/signatures/secp256k1'); // eslint-disable-line @typescript-eslint/no-require-imports
  });
  expect(noAddon).toHaveBeenCalled();
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  const fast = viemOnly.fastAccount(key);
  const hash = keccak256(toHex('fallback'));
  const sig = await fast.sign!({ hash });
  expect(sig).toBe(await account.sign({ hash }));
  expect(await fast.signMessage({ message: 'hello' })).toBe(await account.signMessage({ message: 'hello' }));
  expect(await fast.signTypedData(typedData)).toBe(await account.signTypedData(typedData));
  expect(await viemOnly.recoverSigner(hash, sig)).toBe(account.address);
  const yParity = parseInt(sig.slice(130), 16) - 27;
  expect(await viemOnly.recoverSigner(hash, `${sig.slice(0, 130)}0${yParity}` as Hex)).toBe(account.address);
  await expect(viemOnly.recoverSigner(hash, `0x${'00'.repeat(64)}1b`)).rejects.toThrow();
});
