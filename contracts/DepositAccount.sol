// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A minimal contract account standing in for a managed deposit account on the devnet and in tests: one signer key,
/// whose plain ECDSA signatures it accepts through ERC-1271 (as Permit2 asks a contract owner), and an `approve` the
/// signer calls to let a spender (Permit2) pull the account's tokens.
contract DepositAccount {
    address public signer;

    constructor(address signer_) {
        // With no signer, a signature that recovers to zero would be accepted.
        require(signer_ != address(0), "signer is zero");
        signer = signer_;
    }

    /// ERC-1271: valid iff the 65-byte (r, s, v) signature over `hash` itself (no prefix) recovers to the signer.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        address recovered =
            ecrecover(hash, uint8(signature[64]), bytes32(signature[0:32]), bytes32(signature[32:64]));
        return recovered == signer ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }

    /// The account's ERC-20 allowance for `spender` (e.g. the canonical Permit2), set by the signer.
    function approve(address token, address spender, uint256 amount) external {
        require(msg.sender == signer, "not the signer");
        (bool ok, bytes memory ret) =
            token.call(abi.encodeWithSignature("approve(address,uint256)", spender, amount));
        require(ok && (ret.length == 0 || abi.decode(ret, (bool))), "approve failed");
    }
}
