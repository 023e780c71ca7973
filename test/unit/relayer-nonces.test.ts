import { Nonces } from '../../src/relayer-bot/transactions';

/** The relayer's own nonces (src/relayer-bot/transactions.ts): no two signatures share one, and none leaves a gap. */
describe("the relayer's nonces", () => {
  test('signatures taken at once get consecutive nonces above the pending count, one chain at a time', async () => {
    const nonces = new Nonces(60_000);
    const pending = async () => 7;
    const taken = await Promise.all([1, 2, 3].map(() => nonces.take(1, pending, async (n) => n)));
    expect(taken).toEqual([7, 8, 9]);
    // Another chain has its own.
    expect(await nonces.take(2, pending, async (n) => n)).toBe(7);
  });

  test('a nonce the chain has counted is released, and a hold lapses so that an unsent signature leaves no gap', async () => {
    let now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const nonces = new Nonces(10_000);
      expect(
        await nonces.take(
          1,
          async () => 3,
          async (n) => n,
        ),
      ).toBe(3);
      expect(
        await nonces.take(
          1,
          async () => 3,
          async (n) => n,
        ),
      ).toBe(4);
      // Nonce 3 was sent and counted: the next is above what the chain counts and what is still held.
      expect(
        await nonces.take(
          1,
          async () => 4,
          async (n) => n,
        ),
      ).toBe(5);
      // Nothing sent 4 and 5 (their workflows never recorded them): once their holds lapse, 4 is taken again.
      now += 10_001;
      expect(
        await nonces.take(
          1,
          async () => 4,
          async (n) => n,
        ),
      ).toBe(4);
    } finally {
      jest.restoreAllMocks();
    }
  });

  test('a signature that fails holds nothing, and the next one still runs', async () => {
    const nonces = new Nonces(60_000);
    await expect(
      nonces.take(
        1,
        async () => 0,
        async () => {
          throw new Error('estimateGas: execution reverted');
        },
      ),
    ).rejects.toThrow('execution reverted');
    expect(
      await nonces.take(
        1,
        async () => 0,
        async (n) => n,
      ),
    ).toBe(0);
  });
});
