import { tokenId } from '../intents/quote';
import { devnetChain, readDevnet, sendContract, usdcUnits } from '../dev/devnet-tools';
import { exitOnError } from '../runtime';

const USAGE = [
  "usage: npm run devnet:deposit -- <chainId> <amount> [account]   (USDC into the account's lock with this allocator; the user's by default)",
  '       npm run devnet:transfer -- <chainId> <to> <amount>        (the user sends USDC to an address)',
].join('\n');

/**
 * The devnet user's wallet (account 1 of `npm run devnet`): a deposit into a resource lock, or an ERC-20 transfer.
 * The deposit goes to DevnetCompact as to The Compact: the user approves it for the USDC, and `depositERC20` takes the
 * tokens and mints the lock to the account (docs/chain-indexer.md, A local devnet).
 */
async function main(argv: string[]) {
  const devnet = readDevnet();
  const user = devnet.accounts[1];
  const [command, chainId, ...rest] = argv;
  const deposit = command === 'deposit' && (rest.length === 1 || rest.length === 2);
  if (!deposit && !(command === 'transfer' && rest.length === 2)) {
    console.error(USAGE);
    process.exit(2);
  }
  const chain = devnetChain(devnet, Number(chainId));
  if (deposit) {
    const account = rest[1] ?? user.address;
    const { lockTag } = (await (await fetch(`${devnet.api}/health`)).json()) as { lockTag: string };
    const id = BigInt(tokenId(lockTag, chain.usdc));
    const amount = usdcUnits(rest[0]);
    await sendContract(chain, user.privateKey, chain.usdc, 'TestToken', 'approve', [chain.compact, amount]);
    const tx = await sendContract(chain, user.privateKey, chain.compact, 'DevnetCompact', 'depositERC20', [
      chain.usdc,
      lockTag,
      amount,
      account,
    ]);
    console.log(JSON.stringify({ account, chainId: chain.chainId, lockId: id.toString(), tx }));
  } else {
    const tx = await sendContract(chain, user.privateKey, chain.usdc, 'TestToken', 'transfer', [
      rest[0],
      usdcUnits(rest[1]),
    ]);
    console.log(JSON.stringify({ from: user.address, to: rest[0], chainId: chain.chainId, tx }));
  }
}

main(process.argv.slice(2)).catch(exitOnError);
