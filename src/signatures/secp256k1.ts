import {
  bytesToHex,
  hashMessage,
  hashTypedData,
  hexToBytes,
  isHex,
  recoverAddress,
  type Address,
  type Hex,
  type TypedDataDefinition,
} from 'viem';
import { privateKeyToAccount, publicKeyToAddress, type PrivateKeyAccount } from 'viem/accounts';

type Addon = typeof import('secp256k1');

/**
 * ECDSA over secp256k1 on the request path. Where the `secp256k1` package ships a prebuilt addon for the platform
 * (Linux x64, macOS arm64, Windows x64: loaded as it is, no install script) libsecp256k1 runs natively, an order of
 * magnitude faster than JavaScript for the recovery every submit pays. Elsewhere viem's own curve (already loaded for
 * hashing and encoding) does the arithmetic: slower, but no second package to ship and keep in step. Hashing stays
 * viem's either way, and the results are the same bytes: RFC 6979 nonces and low-s signatures.
 */
function loadNative(): Addon | undefined {
  try {
    // The package's native entry alone: its own fallback would be a second JavaScript curve beside viem's.
    return require('secp256k1/bindings'); // eslint-disable-line @typescript-eslint/no-require-imports
  } catch {
    return undefined;
  }
}

const native = loadNative();

/** The address that signed `hash`. Any signature form other than 65 bytes (r, s, v) goes through viem as before. */
export async function recoverSigner(hash: Hex, signature: Hex): Promise<Address> {
  const bytes = isHex(signature) ? hexToBytes(signature) : undefined;
  const v = bytes?.length === 65 ? bytes[64] : undefined;
  if (!native || v === undefined || ![0, 1, 27, 28].includes(v)) return recoverAddress({ hash, signature });
  const point = native.ecdsaRecover(bytes!.subarray(0, 64), v % 27, hexToBytes(hash), false);
  return publicKeyToAddress(bytesToHex(point));
}

function signHash(addon: Addon, privateKey: Uint8Array, hash: Hex): Hex {
  const { signature, recid } = addon.ecdsaSign(hexToBytes(hash), privateKey);
  const out = new Uint8Array(65);
  out.set(signature);
  out[64] = 27 + recid;
  return bytesToHex(out);
}

/** viem's local account for `privateKey`, whose hash, message and typed-data signatures use libsecp256k1 if it loaded. */
export function fastAccount(privateKey: Hex): PrivateKeyAccount {
  const account = privateKeyToAccount(privateKey);
  if (!native) return account;
  const key = hexToBytes(privateKey);
  return {
    ...account,
    sign: async ({ hash }) => signHash(native, key, hash),
    signMessage: async ({ message }) => signHash(native, key, hashMessage(message)),
    signTypedData: async (typedData) => signHash(native, key, hashTypedData(typedData as TypedDataDefinition)),
  };
}
