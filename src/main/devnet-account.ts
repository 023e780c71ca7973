import { getAddress, isAddress, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { deployContract, readDevnet, setBalance } from '../dev/devnet-tools';
import { exitOnError } from '../runtime';

const USAGE =
  'usage: npm run devnet:account -- <sessionSigner>   (deploys a DepositAccount on every devnet chain, prints its address)';

/**
 * A contract deposit account for the devnet (solidity/DepositAccount.sol): it accepts the session signer's
 * signatures through ERC-1271 and approved Permit2 for the chain's USDC when deployed, as a managed account does at
 * setup. It is deployed at the same address on every devnet chain, as a managed account has one address everywhere:
 * a fresh key deploys it as its first transaction on each chain, and a CREATE address depends only on the deployer
 * and its nonce. Prints only the address, for a shell variable.
 */
async function main(argv: string[]) {
  if (argv.length !== 1 || !isAddress(argv[0])) {
    console.error(USAGE);
    process.exit(2);
  }
  const signer = getAddress(argv[0]);
  const devnet = readDevnet();
  const key = generatePrivateKey();
  const deployer = privateKeyToAccount(key).address;
  const addresses = await Promise.all(
    devnet.chains.map(async (chain) => {
      await setBalance(chain, deployer, parseEther('1'));
      return deployContract(chain, key, 'DepositAccount', [signer, [chain.usdc]]);
    }),
  );
  if (new Set(addresses).size !== 1) throw new Error(`deployed at different addresses: ${addresses.join(', ')}`);
  console.error(`DepositAccount(${signer}) on ${devnet.chains.map((c) => c.chainId).join(', ')}`);
  console.log(getAddress(addresses[0]));
}

main(process.argv.slice(2)).catch(exitOnError);
