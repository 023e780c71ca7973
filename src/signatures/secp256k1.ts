import * as ecc from 'tiny-secp256k1';
import {
  bytesToHex,
  hashMessage,
  hexToBytes,
  isHex,
  recoverAddress,
  type Address,
  type Hex,
  type TypedDataDefinition,
} from 'viem';
import { privateKeyToAccount, publicKeyToAddress, type PrivateKeyAccount } from 'viem/accounts';
import { typedDataDigest } from './eip712-hash';

/**
 * ECDSA over secp256k1 on the request path, computed by libsecp256k1 (WebAssembly, through tiny-secp256k1): a
 * recovery costs about a seventh and a signature about a third of viem's JavaScript curve on this machine, and the
 * submit and quote routes do one of each per request. Hashing stays viem's (typed data: ./eip712-hash.ts, the same
 * bytes); only the curve arithmetic moves. Results are the same bytes: RFC 6979 nonces and low-s signatures in both.
 */

/** The address that signed `hash`. Any signature form other than 65 bytes (r, s, v) goes through viem as before. */
export async function recoverSigner(hash: Hex, signature: Hex): Promise<Address> {
  const bytes = isHex(signature) ? hexToBytes(signature) : undefined;
  const v = bytes?.length === 65 ? bytes[64] : undefined;
  if (v === undefined || ![0, 1, 27, 28].includes(v)) return recoverAddress({ hash, signature });
  const point = ecc.recover(hexToBytes(hash), bytes!.subarray(0, 64), (v % 27) as 0 | 1, false);
  if (!point) throw new Error('signature does not recover to a point');
  return publicKeyToAddress(bytesToHex(point));
}

function signHash(privateKey: Uint8Array, hash: Hex): Hex {
  const { signature, recoveryId } = ecc.signRecoverable(hexToBytes(hash), privateKey);
  const out = new Uint8Array(65);
  out.set(signature);
  out[64] = 27 + recoveryId;
  return bytesToHex(out);
}

/** viem's local account for `privateKey`, whose hash, message and typed-data signatures use libsecp256k1. */
export function fastAccount(privateKey: Hex): PrivateKeyAccount {
  const account = privateKeyToAccount(privateKey);
  const key = hexToBytes(privateKey);
  return {
    ...account,
    sign: async ({ hash }) => signHash(key, hash),
    signMessage: async ({ message }) => signHash(key, hashMessage(message)),
    signTypedData: async (typedData) => signHash(key, typedDataDigest(typedData as TypedDataDefinition)),
  };
}
