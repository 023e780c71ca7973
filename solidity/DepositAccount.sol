// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Signatures} from "./Signatures.sol";

/// A minimal contract account standing in for a managed deposit account on the devnet and in tests: one signer key,
/// whose plain ECDSA signatures it accepts through ERC-1271 (as Permit2 asks a contract owner). It approves the
/// canonical Permit2 for its tokens when deployed, as a managed account does at setup, so Permit2 can pull them with
/// the signer's permits and nobody needs the signer's key to set it up.
contract DepositAccount {
    address constant PERMIT2 = 0x000000000022D473030F116dDEE9F6B43aC78BA3;

    address public signer;

    constructor(address signer_, address[] memory tokens) {
        // With no signer, a signature that recovers to zero would be accepted.
        require(signer_ != address(0), "signer is zero");
        signer = signer_;
        for (uint256 i = 0; i < tokens.length; i++) {
            (bool ok, bytes memory ret) =
                tokens[i].call(abi.encodeWithSignature("approve(address,uint256)", PERMIT2, type(uint256).max));
            // A call to an address without code succeeds: refuse it rather than approve nothing.
            require(ok && tokens[i].code.length > 0 && (ret.length == 0 || abi.decode(ret, (bool))), "approve failed");
        }
    }

    /// ERC-1271: valid iff the 65-byte (r, s, v) signature over `hash` itself (no prefix) recovers to the signer.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        return Signatures.recover(hash, signature) == signer ? Signatures.ERC1271_MAGIC : bytes4(0xffffffff);
    }
}
