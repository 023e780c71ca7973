/**
 * An EIP-712 struct's members written as in its encodeType (`bytes12 lockTag,address token,uint256 amount`), in the
 * `[{ name, type }]` form viem's `types` take: each type list reads as the Solidity struct it mirrors.
 */
export const members = (encoded: string): { name: string; type: string }[] =>
  encoded.split(',').map((member) => {
    const [type, name] = member.trim().split(/\s+/);
    return { name, type };
  });
