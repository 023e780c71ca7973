import { parseAbi, parseAbiItem } from 'viem';

/**
 * The Compact's events, declared as in its ITheCompact.sol (ERC-6909's Transfer as The Compact's ERC-6909 base
 * declares it), and the reads the indexer makes at a block.
 */
export const COMPACT_EVENTS = parseAbi([
  'event Transfer(address by, address indexed from, address indexed to, uint256 indexed id, uint256 amount)',
  'event Claim(address indexed sponsor, address indexed allocator, address indexed arbiter, bytes32 claimHash, uint256 nonce)',
  'event ForcedWithdrawalStatusUpdated(address indexed account, uint256 indexed id, bool activating, uint256 withdrawableAt)',
]);
export const COMPACT_BALANCE = parseAbi(['function balanceOf(address owner, uint256 id) view returns (uint256)']);

export const ERC20_TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
export const ERC20_BALANCE = parseAbi(['function balanceOf(address owner) view returns (uint256)']);

/** Permit2's unordered nonces: bit `nonce & 0xff` of word `nonce >> 8` is set once the nonce is spent. */
export const PERMIT2_NONCES = parseAbi([
  'function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)',
  'event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask)',
]);
