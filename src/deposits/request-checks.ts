import type { TypedDataDefinition } from 'viem';
import type { ChainRpc } from '../chains/rpc';
import { type ChainRegistry, fromCaip2 } from '../chains/registry';
import { DomainError } from '../errors';
import { signedBySponsor } from '../intents/verify';
import { depositError } from './errors';

type Path = (string | number)[];

/** A chain (CAIP-2) the processor serves, else CHAIN-1 naming `<path>.chain`. Returns the chain id. */
export function servedChain(
  registry: ChainRegistry,
  chain: string,
  path: Path,
  chainNoun: 'chain' | 'target chain',
): number {
  const chainId = fromCaip2(chain)!; // the schema's CAIP-2 pattern is fromCaip2's
  if (!registry.chain(chainId)) {
    throw depositError('UNSUPPORTED_CHAIN', `Unsupported ${chainNoun} ${chain}`, 'CHAIN-1', [
      { message: 'is not a supported chain', path: [...path, 'chain'], code: 'CHAIN-1' },
    ]);
  }
  return chainId;
}

/**
 * A chain (CAIP-2) and token the processor serves, else the deposit codes of the same refusals (CHAIN-1, TOKEN-1)
 * naming `<path>.chain` / `<path>.token`; `chainNoun` is how the messages call the chain. Returns the chain id.
 */
export function servedChainId(
  registry: ChainRegistry,
  at: { chain: string; token: string },
  path: Path,
  chainNoun: 'chain' | 'target chain',
): number {
  const chainId = servedChain(registry, at.chain, path, chainNoun);
  if (!registry.token(chainId, at.token)) {
    const which = chainNoun === 'chain' ? 'this chain' : 'the target chain';
    throw depositError('UNSUPPORTED_TOKEN', `Token ${at.token} not supported on ${at.chain}`, 'TOKEN-1', [
      { message: `is not supported on ${which}`, path: [...path, 'token'], code: 'TOKEN-1' },
    ]);
  }
  return chainId;
}

/**
 * A signature the processor requires (session details, an account's registration, a withdrawal) by `signer` over
 * `typedData`, as the first of `accountTypes` that verifies it (EOAs recovered locally, smart accounts through
 * ERC-1271/6492). Refused with the deposit error body at `path`: no RPC configured for the chain is the caller's 400
 * (`unverifiable`); an RPC out of reach stays a 503 (retry later); any other signer is `refused`.
 */
export async function requireSignature(
  signer: string,
  signature: `0x${string}`,
  typedData: TypedDataDefinition,
  accountTypes: ('EOA' | 'ERC7579')[],
  path: Path,
  refused: { error: string; message: string },
  rpc: ChainRpc,
): Promise<void> {
  let valid = false;
  try {
    for (const type of accountTypes) if (!valid) valid = await signedBySponsor(signer, signature, typedData, type, rpc);
  } catch (e) {
    if (e instanceof DomainError && e.code === 'VALIDATION_ERROR')
      throw depositError(
        'VALIDATION_ERROR',
        e.message,
        undefined,
        [{ message: e.message, path, code: 'unverifiable' }],
        e.detail.operatorHint,
      );
    throw e;
  }
  if (!valid)
    throw depositError('INVALID_SIGNATURE', refused.error, undefined, [
      { message: refused.message, path, code: 'signature' },
    ]);
}

/** An owner signs as an EOA, else as a smart account. */
export const ownerSigns = (ownerType: string): ('EOA' | 'ERC7579')[] => [ownerType === 'EOA' ? 'EOA' : 'ERC7579'];
