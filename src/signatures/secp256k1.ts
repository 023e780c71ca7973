import * as wasm from 'tiny-secp256k1';
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

/**
 * ECDSA over secp256k1 on the request path, computed by libsecp256k1 (Bitcoin Core's curve library). Where the
 * `secp256k1` package ships a prebuilt addon for the platform (Linux x64, macOS arm64, Windows x64: loaded as it is,
 * no install script) it runs natively, well below the WebAssembly build's cost for the recovery every submit pays
 * (bench/RESULTS.md, Our share of a submit). Elsewhere the WebAssembly build (tiny-secp256k1), itself cheaper than
 * viem's JavaScript curve. Hashing stays viem's; only the curve arithmetic moves. Results are the same bytes in every
 * case: RFC 6979 nonces and low-s signatures.
 */
interface Curve {
  /** the uncompressed public key, or a throw when the signature recovers to no point */
  recover(hash: Uint8Array, signature: Uint8Array, recoveryId: 0 | 1): Uint8Array;
  sign(hash: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recoveryId: number };
}

function loadCurve(): Curve {
  try {
    // The package's native entry alone: its own fallback is a JavaScript curve slower than the WebAssembly one.
    const native: typeof import('secp256k1') = require('secp256k1/bindings'); // eslint-disable-line @typescript-eslint/no-require-imports
    return {
      recover: (hash, signature, recoveryId) => native.ecdsaRecover(signature, recoveryId, hash, false),
      sign: (hash, privateKey) => {
        const { signature, recid } = native.ecdsaSign(hash, privateKey);
        return { signature, recoveryId: recid };
      },
    };
  } catch {
    return {
      recover: (hash, signature, recoveryId) => {
        const point = wasm.recover(hash, signature, recoveryId, false);
        if (!point) throw new Error('signature does not recover to a point');
        return point;
      },
      sign: (hash, privateKey) => wasm.signRecoverable(hash, privateKey),
    };
  }
}

const curve = loadCurve();

/** The address that signed `hash`. Any signature form other than 65 bytes (r, s, v) goes through viem as before. */
export async function recoverSigner(hash: Hex, signature: Hex): Promise<Address> {
  const bytes = isHex(signature) ? hexToBytes(signature) : undefined;
  const v = bytes?.length === 65 ? bytes[64] : undefined;
  if (v === undefined || ![0, 1, 27, 28].includes(v)) return recoverAddress({ hash, signature });
  return publicKeyToAddress(bytesToHex(curve.recover(hexToBytes(hash), bytes!.subarray(0, 64), (v % 27) as 0 | 1)));
}

function signHash(privateKey: Uint8Array, hash: Hex): Hex {
  const { signature, recoveryId } = curve.sign(hexToBytes(hash), privateKey);
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
    signTypedData: async (typedData) => signHash(key, hashTypedData(typedData as TypedDataDefinition)),
  };
}
