// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Signatures} from "./Signatures.sol";

interface ICompactDomain {
    function DOMAIN_SEPARATOR() external view returns (bytes32);
}

/// An allocator that authorizes what one key signed, as the service's allocator signs `allocatorData`: an ECDSA
/// signature over keccak256(0x1901 ‖ the compact's DOMAIN_SEPARATOR() ‖ claimHash). It keeps no state, so the
/// compact's nonces are the only replay protection. Signer and compact are immutables: they stay in the runtime code
/// when it is placed at another address (the allocator address a lock tag names) with anvil_setCode.
contract SignerAllocator {
    address public immutable signer;
    address public immutable compact;

    constructor(address signer_, address compact_) {
        // With no signer, a signature that recovers to zero would be accepted.
        require(signer_ != address(0), "signer is zero");
        signer = signer_;
        compact = compact_;
    }

    /// Answers its own selector when `allocatorData` is the signer's signature of the claim, else nothing the compact
    /// accepts (the compact then refuses with InvalidAllocation).
    function authorizeClaim(
        bytes32 claimHash,
        address arbiter,
        address sponsor,
        uint256 nonce,
        uint256 expires,
        uint256[2][] calldata idsAndAmounts,
        bytes calldata allocatorData
    ) external view returns (bytes4) {
        return isClaimAuthorized(claimHash, arbiter, sponsor, nonce, expires, idsAndAmounts, allocatorData)
            ? this.authorizeClaim.selector
            : bytes4(0xffffffff);
    }

    /// Arbiter, sponsor, nonce, expiry and locks are all in the claim hash the signer signed.
    function isClaimAuthorized(
        bytes32 claimHash,
        address,
        address,
        uint256,
        uint256,
        uint256[2][] calldata,
        bytes calldata allocatorData
    ) public view returns (bool) {
        if (allocatorData.length != 65) return false;
        bytes32 digest = keccak256(abi.encodePacked(hex"1901", ICompactDomain(compact).DOMAIN_SEPARATOR(), claimHash));
        return Signatures.recover(digest, allocatorData) == signer;
    }

    /// Plain ERC-6909 transfers of its locks are not allocated by this allocator.
    function attest(address, address, address, uint256, uint256) external pure returns (bytes4) {
        return 0xffffffff;
    }
}
