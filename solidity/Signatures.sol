// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Signature checks our contracts share: ECDSA over a digest as it is (no prefix), 65 bytes (r, s, v) or 64 (EIP-2098),
/// and ERC-1271 for an account with code.
library Signatures {
    bytes4 internal constant ERC1271_MAGIC = 0x1626ba7e;

    /// The signer of `digest`, or address(0) for a signature of another length or one that recovers nobody.
    function recover(bytes32 digest, bytes calldata signature) internal pure returns (address) {
        bytes32 r;
        bytes32 s;
        uint8 v;
        if (signature.length == 65) {
            r = bytes32(signature[0:32]);
            s = bytes32(signature[32:64]);
            v = uint8(signature[64]);
        } else if (signature.length == 64) {
            // EIP-2098: the top bit of the second word is v's parity, the rest is s.
            r = bytes32(signature[0:32]);
            bytes32 vs = bytes32(signature[32:64]);
            s = vs & bytes32(type(uint256).max >> 1);
            v = uint8(uint256(vs >> 255)) + 27;
        } else {
            return address(0);
        }
        return ecrecover(digest, v, r, s);
    }

    /// Whether the account `signer` (with code) accepts `signature` over `digest` through ERC-1271.
    function acceptedBy(address signer, bytes32 digest, bytes calldata signature) internal view returns (bool) {
        (bool ok, bytes memory ret) =
            signer.staticcall(abi.encodeWithSignature("isValidSignature(bytes32,bytes)", digest, signature));
        return ok && ret.length >= 32 && bytes4(abi.decode(ret, (bytes32))) == ERC1271_MAGIC;
    }
}
