// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// The smallest ERC-1271 smart account the published clients' signatures fit: a signature is the owner validator's
/// address (20 bytes, as 7579 accounts route by it) followed by the owner's ECDSA signature over the hash itself or
/// over its EIP-191 form (the 0.5.x client signs the raw digest as a message), as Rhinestone's ownable validator accepts.
contract MinimalAccount {
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 85) return 0xffffffff;
        bytes calldata ecdsa = signature[20:];
        bytes32 prefixed = keccak256(abi.encodePacked("\x19Ethereum Signed Message:\n32", hash));
        if (recover(hash, ecdsa) == owner || recover(prefixed, ecdsa) == owner) return 0x1626ba7e;
        return 0xffffffff;
    }

    function recover(bytes32 hash, bytes calldata sig) private pure returns (address) {
        return ecrecover(hash, uint8(sig[64]), bytes32(sig[0:32]), bytes32(sig[32:64]));
    }
}

/// CREATE2 factory: an account's address follows from its owner and salt before it exists (ERC-6492's factory call).
contract AccountFactory {
    function deploy(address owner, bytes32 salt) external returns (address) {
        return address(new MinimalAccount{salt: salt}(owner));
    }
}
