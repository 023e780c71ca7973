import { recoverTypedDataAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { sessionTypedData, withdrawTypedData } from '../../src/deposits/session-digest';
import { sessionSigners } from '../../src/deposits/signer';

describe('deposit session signers and signed domains', () => {
  test('each project has its own signer, none the orchestrator, the same one every time', () => {
    const key = generatePrivateKey();
    const signerOf = sessionSigners(key);
    const [a, b] = [signerOf('project-a'), signerOf('project-b')];
    expect(a.address).not.toBe(b.address);
    expect([a.address, b.address]).not.toContain(privateKeyToAccount(key).address);
    expect(signerOf('project-a')).toBe(a);
    expect(sessionSigners(key)('project-a').address).toBe(a.address);
    expect(sessionSigners(generatePrivateKey())('project-a').address).not.toBe(a.address);
  });

  test("a Withdraw or EnableSessions signature made for one project's domain does not verify under another's", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const signerOf = sessionSigners(generatePrivateKey());
    const [p1, p2] = [signerOf('p1').address, signerOf('p2').address];
    const account = privateKeyToAccount(generatePrivateKey()).address;
    const request = {
      account,
      token: account,
      amount: '1',
      recipient: owner.address,
      nonce: '1',
      deadline: '2000000000',
    };
    const details = { hashesAndChainIds: [{ chainId: 8453, sessionDigest: `0x${'ab'.repeat(32)}` as const }] };
    for (const typed of [
      (s: string) => withdrawTypedData(request, 8453, s),
      (s: string) => sessionTypedData(account, 42161, details, s),
    ]) {
      const signature = await owner.signTypedData(typed(p1) as Parameters<typeof owner.signTypedData>[0]);
      expect(
        await recoverTypedDataAddress({ ...(typed(p1) as Parameters<typeof recoverTypedDataAddress>[0]), signature }),
      ).toBe(owner.address);
      expect(
        await recoverTypedDataAddress({ ...(typed(p2) as Parameters<typeof recoverTypedDataAddress>[0]), signature }),
      ).not.toBe(owner.address);
    }
    expect(withdrawTypedData(request, 8453, p1).domain).toEqual({
      name: 'Deposit Processor',
      version: '1',
      chainId: 8453,
      verifyingContract: p1,
    });
  });
});
