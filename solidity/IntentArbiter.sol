// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {DevnetCompact} from "./DevnetCompact.sol";
import {Permit2} from "./Permit2.sol";
import {Signatures} from "./Signatures.sol";

/// The arbiter the service names in its intents on an origin chain: it makes The Compact's claim of an element (or
/// Permit2's pull of wallet funds) for the relayer that filled the intent, once shown the service's attestation of
/// that fill. The service signs the attestation only after its chain indexer proved the fill at depth on the
/// destination chain (docs/trust-model.md), so the attester is trusted as the allocator is; a deployment may put a
/// cross-chain message or an oracle in its place.
///
/// The Compact takes msg.sender as the arbiter, so a relayer cannot claim an intent that names this contract except
/// through it. Only the attested relayer may call, every claimant must be it (as the token, lock tag 0, or in a lock
/// of its own), and the attestation must be for the claim hash The Compact rebuilt and signed by the attester;
/// anything else reverts the whole claim. The claim structs are The Compact's (ITheCompactClaims), so the real Compact can stand behind it.
/// No constructor state beyond immutables, and the domain is built from address(this) on each call: the runtime code
/// may be placed anywhere.
contract IntentArbiter {
    /// What the service attests: the fill that earns the claim `claimHash` (for a Permit2 element, the hash of
    /// (owner, nonce, witness)), on `fillChainId` in transaction `fillTransaction`, sent by `relayer`.
    struct FillAttestation {
        bytes32 claimHash;
        uint256 fillChainId;
        bytes32 fillTransaction;
        address relayer;
    }

    error NotTheRelayer(uint256 claimant, address relayer);
    error CallerNotTheRelayer(address caller, address relayer);
    error AttestationOfAnotherClaim(bytes32 attested, bytes32 claimHash);
    error InvalidAttestation(address signer);

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant ATTESTATION_TYPEHASH =
        keccak256("FillAttestation(bytes32 claimHash,uint256 fillChainId,bytes32 fillTransaction,address relayer)");

    DevnetCompact public immutable compact;
    Permit2 public immutable permit2;
    address public immutable attester;

    constructor(address compact_, address permit2_, address attester_) {
        compact = DevnetCompact(compact_);
        permit2 = Permit2(permit2_);
        attester = attester_;
    }

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256("IntentArbiter"), keccak256("1"), block.chainid, address(this))
        );
    }

    /// A single-chain compact of one lock.
    function claim(DevnetCompact.SingleClaim calldata c, FillAttestation calldata a, bytes calldata attesterSignature)
        external
        returns (bytes32 claimHash)
    {
        _paysRelayer(c.claimants, a.relayer);
        claimHash = compact.claim(c);
        _attested(claimHash, a, attesterSignature);
    }

    /// A single-chain compact of several locks.
    function batchClaim(DevnetCompact.BatchClaim calldata c, FillAttestation calldata a, bytes calldata attesterSignature)
        external
        returns (bytes32 claimHash)
    {
        _batchPaysRelayer(c.claims, a.relayer);
        claimHash = compact.batchClaim(c);
        _attested(claimHash, a, attesterSignature);
    }

    /// On the notarized chain, an element of one lock.
    function multichainClaim(
        DevnetCompact.MultichainClaim calldata c,
        FillAttestation calldata a,
        bytes calldata attesterSignature
    ) external returns (bytes32 claimHash) {
        _paysRelayer(c.claimants, a.relayer);
        claimHash = compact.multichainClaim(c);
        _attested(claimHash, a, attesterSignature);
    }

    /// On another chain of the intent, an element of one lock.
    function exogenousClaim(
        DevnetCompact.ExogenousMultichainClaim calldata c,
        FillAttestation calldata a,
        bytes calldata attesterSignature
    ) external returns (bytes32 claimHash) {
        _paysRelayer(c.claimants, a.relayer);
        claimHash = compact.exogenousClaim(c);
        _attested(claimHash, a, attesterSignature);
    }

    /// On the notarized chain, an element of several locks.
    function batchMultichainClaim(
        DevnetCompact.BatchMultichainClaim calldata c,
        FillAttestation calldata a,
        bytes calldata attesterSignature
    ) external returns (bytes32 claimHash) {
        _batchPaysRelayer(c.claims, a.relayer);
        claimHash = compact.batchMultichainClaim(c);
        _attested(claimHash, a, attesterSignature);
    }

    /// On another chain of the intent, an element of several locks.
    function exogenousBatchClaim(
        DevnetCompact.ExogenousBatchMultichainClaim calldata c,
        FillAttestation calldata a,
        bytes calldata attesterSignature
    ) external returns (bytes32 claimHash) {
        _batchPaysRelayer(c.claims, a.relayer);
        claimHash = compact.exogenousBatchClaim(c);
        _attested(claimHash, a, attesterSignature);
    }

    /// An element funded by the sponsor's wallet: Permit2 pays only its spender's transfers, and this contract is the
    /// spender the sponsor signed. Everything permitted goes to the relayer; Permit2's nonce makes it once only.
    function permit2Claim(
        Permit2.PermitBatchTransferFrom calldata permit,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature,
        FillAttestation calldata a,
        bytes calldata attesterSignature
    ) external returns (bytes32 claimHash) {
        claimHash = keccak256(abi.encode(owner, permit.nonce, witness));
        _attested(claimHash, a, attesterSignature);
        Permit2.SignatureTransferDetails[] memory details =
            new Permit2.SignatureTransferDetails[](permit.permitted.length);
        for (uint256 i = 0; i < details.length; i++) {
            details[i] = Permit2.SignatureTransferDetails(a.relayer, permit.permitted[i].amount);
        }
        permit2.permitWitnessTransferFrom(permit, details, owner, witness, witnessTypeString, signature);
    }

    function _paysRelayer(DevnetCompact.Component[] calldata claimants, address relayer) private pure {
        for (uint256 i = 0; i < claimants.length; i++) {
            if (address(uint160(claimants[i].claimant)) != relayer) revert NotTheRelayer(claimants[i].claimant, relayer);
        }
    }

    function _batchPaysRelayer(DevnetCompact.BatchClaimComponent[] calldata claims, address relayer) private pure {
        for (uint256 i = 0; i < claims.length; i++) {
            _paysRelayer(claims[i].portions, relayer);
        }
    }

    function _attested(bytes32 claimHash, FillAttestation calldata a, bytes calldata signature) private view {
        // Only the relayer sends its claim: anyone else holding the attestation could spend the claim's nonce with
        // claimants that pay the relayer nothing.
        if (msg.sender != a.relayer) revert CallerNotTheRelayer(msg.sender, a.relayer);
        if (a.claimHash != claimHash) revert AttestationOfAnotherClaim(a.claimHash, claimHash);
        bytes32 digest = keccak256(
            abi.encodePacked(
                "\x19\x01",
                DOMAIN_SEPARATOR(),
                keccak256(abi.encode(ATTESTATION_TYPEHASH, claimHash, a.fillChainId, a.fillTransaction, a.relayer))
            )
        );
        address signer = Signatures.recover(digest, signature);
        if (signer != attester || signer == address(0)) revert InvalidAttestation(signer);
    }
}
