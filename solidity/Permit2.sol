// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Signatures} from "./Signatures.sol";

/// Permit2's SignatureTransfer witness pulls, ours: written from Permit2's published interface (names, types, typed
/// data, errors), not from its code, so our tests and the devnet can check Permit2 pulls end to end. It is placed at
/// Permit2's canonical address with anvil_setCode; a real deployment uses Uniswap's Permit2 at that same address.
/// Only what intents use is here: the witness transfers (batch and single) and the unordered nonces.
///
/// The runtime code must work wherever it is placed: no immutables and no constructor state, and the domain
/// separator is computed from block.chainid and address(this) on each call.
contract Permit2 {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct PermitBatchTransferFrom {
        TokenPermissions[] permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask);

    error SignatureExpired(uint256 signatureDeadline);
    error LengthMismatch();
    error InvalidNonce();
    error InvalidAmount(uint256 maxAmount);
    error InvalidSignatureLength();
    error InvalidSignature();
    error InvalidSigner();
    error InvalidContractSignature();
    error TransferFromFailed();

    bytes32 private constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("Permit2");
    bytes32 private constant TOKEN_PERMISSIONS_TYPEHASH = keccak256("TokenPermissions(address token,uint256 amount)");
    // The caller's witnessTypeString completes these: it names the witness member, closes the struct and appends
    // every referenced type (TokenPermissions included) in EIP-712 order.
    bytes private constant BATCH_WITNESS_STUB =
        "PermitBatchWitnessTransferFrom(TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline,";
    bytes private constant SINGLE_WITNESS_STUB =
        "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,";

    /// owner => word position (nonce >> 8) => used nonces, one bit each (nonce & 0xff).
    mapping(address => mapping(uint256 => uint256)) public nonceBitmap;

    /// Virtual so that a contract built on this one can cache it at construction, as the real contract does (the test
    /// of the devnet's swap-in places such a one).
    function DOMAIN_SEPARATOR() public view virtual returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, block.chainid, address(this)));
    }

    /// Pulls each entry's requestedAmount from `owner` to its `to`, as `owner` signed for msg.sender (the spender).
    function permitWitnessTransferFrom(
        PermitBatchTransferFrom calldata permit,
        SignatureTransferDetails[] calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external {
        if (block.timestamp > permit.deadline) revert SignatureExpired(permit.deadline);
        uint256 count = permit.permitted.length;
        if (transferDetails.length != count) revert LengthMismatch();
        _useNonce(owner, permit.nonce);

        bytes32[] memory hashes = new bytes32[](count);
        for (uint256 i = 0; i < count; i++) hashes[i] = _hash(permit.permitted[i]);
        bytes32 structHash = keccak256(
            abi.encode(
                keccak256(abi.encodePacked(BATCH_WITNESS_STUB, witnessTypeString)),
                keccak256(abi.encodePacked(hashes)),
                msg.sender,
                permit.nonce,
                permit.deadline,
                witness
            )
        );
        _verify(owner, _digest(structHash), signature);

        for (uint256 i = 0; i < count; i++) _pull(permit.permitted[i], transferDetails[i], owner);
    }

    /// The single-token form: the same checks, in the same order, with the permission's hash in place of the array's.
    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external {
        if (block.timestamp > permit.deadline) revert SignatureExpired(permit.deadline);
        _useNonce(owner, permit.nonce);
        bytes32 structHash = keccak256(
            abi.encode(
                keccak256(abi.encodePacked(SINGLE_WITNESS_STUB, witnessTypeString)),
                _hash(permit.permitted),
                msg.sender,
                permit.nonce,
                permit.deadline,
                witness
            )
        );
        _verify(owner, _digest(structHash), signature);
        _pull(permit.permitted, transferDetails, owner);
    }

    /// Lets an owner cancel signed permits before anyone uses them: marks the `mask` bits of its word `wordPos` used.
    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external {
        nonceBitmap[msg.sender][wordPos] |= mask;
        emit UnorderedNonceInvalidation(msg.sender, wordPos, mask);
    }

    function _useNonce(address owner, uint256 nonce) private {
        uint256 bit = 1 << (nonce & 0xff);
        uint256 word = nonceBitmap[owner][nonce >> 8];
        if (word & bit != 0) revert InvalidNonce();
        nonceBitmap[owner][nonce >> 8] = word | bit;
    }

    function _hash(TokenPermissions calldata p) private pure returns (bytes32) {
        return keccak256(abi.encode(TOKEN_PERMISSIONS_TYPEHASH, p.token, p.amount));
    }

    function _digest(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", DOMAIN_SEPARATOR(), structHash));
    }

    function _pull(TokenPermissions calldata p, SignatureTransferDetails calldata d, address owner) private {
        if (d.requestedAmount > p.amount) revert InvalidAmount(p.amount);
        if (d.requestedAmount == 0) return;
        (bool ok, bytes memory ret) =
            p.token.call(abi.encodeWithSignature("transferFrom(address,address,uint256)", owner, d.to, d.requestedAmount));
        // Tokens that return nothing count as success, but only if there is code: a call to an empty address succeeds.
        if (!ok || (ret.length == 0 ? p.token.code.length == 0 : !abi.decode(ret, (bool)))) revert TransferFromFailed();
    }

    /// An account with code answers for itself (ERC-1271); any other owner must have signed the digest with its key.
    function _verify(address owner, bytes32 digest, bytes calldata signature) private view {
        if (owner.code.length > 0) {
            if (!Signatures.acceptedBy(owner, digest, signature)) revert InvalidContractSignature();
            return;
        }
        if (signature.length != 65 && signature.length != 64) revert InvalidSignatureLength();
        address signer = Signatures.recover(digest, signature);
        if (signer == address(0)) revert InvalidSignature();
        if (signer != owner) revert InvalidSigner();
    }
}
