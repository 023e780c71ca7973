// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Signatures} from "./Signatures.sol";

/// What The Compact calls on an allocator to authorize a claim (IAllocator.authorizeClaim): it must return its own
/// selector.
interface IClaimAllocator {
    function authorizeClaim(
        bytes32 claimHash,
        address arbiter,
        address sponsor,
        uint256 nonce,
        uint256 expires,
        uint256[2][] calldata idsAndAmounts,
        bytes calldata allocatorData
    ) external returns (bytes4);
}

/// The Compact's resource locks for the devnet and the tests, enforcing what The Compact enforces on the paths the
/// service uses. Written from The Compact's published interface (ITheCompact, ITheCompactClaims, IAllocator: function
/// signatures, claim structs, events, EIP-712 typestrings), not from its code. Real deposits (the tokens are taken),
/// ERC-6909 balances per (owner, id) with id = lockTag << 160 | token, allocator registration, the claim endpoints
/// (single, batch, multichain and exogenous, with or without a witness), allocated transfers and withdrawals, and
/// forced withdrawals.
///
/// A claim is refused unless it is before `expires`, its nonce is unused in its allocator's scope (then spent), the
/// sponsor signed the claim hash (ECDSA, or ERC-1271 for a sponsor with code), and the allocator's `authorizeClaim`
/// accepts `allocatorData`. As in The Compact, the arbiter is msg.sender and the mandate is only its hash (`witness`):
/// both are part of the claim hash the sponsor signed, so a call from anyone but the arbiter, or with another
/// mandate, fails the sponsor's check; the error carries the claim hash rebuilt, which tells those cases apart.
///
/// Not here: registered compacts (register*, deposit-and-register), Permit2 deposits, emissaries, plain ERC-6909
/// transfers and their allocator `attest`, and the real contract's withdrawal fallbacks.
contract DevnetCompact {
    struct Component {
        uint256 claimant; // lockTag << 160 | recipient: lock tag 0 withdraws, the lock's own tag transfers
        uint256 amount;
    }

    struct BatchClaimComponent {
        uint256 id;
        uint256 allocatedAmount;
        Component[] portions;
    }

    struct ComponentsById {
        uint256 id;
        Component[] portions;
    }

    /// The Compact's `Claim` struct, renamed here only because the Claim event shares this scope (the ABI is alike).
    struct SingleClaim {
        bytes allocatorData;
        bytes sponsorSignature;
        address sponsor;
        uint256 nonce;
        uint256 expires;
        bytes32 witness;
        string witnessTypestring;
        uint256 id;
        uint256 allocatedAmount;
        Component[] claimants;
    }

    struct BatchClaim {
        bytes allocatorData;
        bytes sponsorSignature;
        address sponsor;
        uint256 nonce;
        uint256 expires;
        bytes32 witness;
        string witnessTypestring;
        BatchClaimComponent[] claims;
    }

    struct MultichainClaim {
        bytes allocatorData;
        bytes sponsorSignature;
        address sponsor;
        uint256 nonce;
        uint256 expires;
        bytes32 witness;
        string witnessTypestring;
        uint256 id;
        uint256 allocatedAmount;
        Component[] claimants;
        bytes32[] additionalChains;
    }

    struct ExogenousMultichainClaim {
        bytes allocatorData;
        bytes sponsorSignature;
        address sponsor;
        uint256 nonce;
        uint256 expires;
        bytes32 witness;
        string witnessTypestring;
        uint256 id;
        uint256 allocatedAmount;
        Component[] claimants;
        bytes32[] additionalChains;
        uint256 chainIndex;
        uint256 notarizedChainId;
    }

    struct BatchMultichainClaim {
        bytes allocatorData;
        bytes sponsorSignature;
        address sponsor;
        uint256 nonce;
        uint256 expires;
        bytes32 witness;
        string witnessTypestring;
        BatchClaimComponent[] claims;
        bytes32[] additionalChains;
    }

    struct ExogenousBatchMultichainClaim {
        bytes allocatorData;
        bytes sponsorSignature;
        address sponsor;
        uint256 nonce;
        uint256 expires;
        bytes32 witness;
        string witnessTypestring;
        BatchClaimComponent[] claims;
        bytes32[] additionalChains;
        uint256 chainIndex;
        uint256 notarizedChainId;
    }

    struct AllocatedTransfer {
        bytes allocatorData;
        uint256 nonce;
        uint256 expires;
        uint256 id;
        Component[] recipients;
    }

    struct AllocatedBatchTransfer {
        bytes allocatorData;
        uint256 nonce;
        uint256 expires;
        ComponentsById[] transfers;
    }

    /// What every claim is checked with, once its hash is rebuilt.
    struct Head {
        address sponsor;
        uint256 nonce;
        uint256 expires;
        bytes32 claimHash;
        bytes32 sponsorDomain;
    }

    event Transfer(address by, address indexed from, address indexed to, uint256 indexed id, uint256 amount);
    event Claim(
        address indexed sponsor, address indexed allocator, address indexed arbiter, bytes32 claimHash, uint256 nonce
    );
    event ForcedWithdrawalStatusUpdated(
        address indexed account, uint256 indexed id, bool activating, uint256 withdrawableAt
    );
    event AllocatorRegistered(uint96 allocatorId, address allocator);

    error Expired(uint256 expiration);
    error InvalidNonce(address allocator, uint256 nonce);
    error InvalidSponsorSignature(address sponsor, bytes32 claimHash);
    error InvalidAllocation(address allocator);
    error NoAllocatorRegistered(uint96 allocatorId);
    error AllocatorAlreadyRegistered(uint96 allocatorId, address allocator);
    error InvalidRegistrationProof(address allocator);
    error InconsistentAllocators();
    error AllocatedAmountExceeded(uint256 allocatedAmount, uint256 providedAmount);
    error ChainIndexOutOfRange();
    error InvalidScope(uint256 id);
    error InsufficientBalance(address owner, uint256 id);
    error TransferFailed(address token);
    error InvalidDepositBalanceChange();
    error PrematureWithdrawal(uint256 id);
    error ForcedWithdrawalAlreadyDisabled(address account, uint256 id);
    error ReentrantCall();
    error NoIdsAndAmountsProvided();

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant LOCK_TYPEHASH = keccak256("Lock(bytes12 lockTag,address token,uint256 amount)");
    bytes private constant LOCK = "Lock(bytes12 lockTag,address token,uint256 amount)";
    // The caller's witnessTypestring goes inside "Mandate(...)": the mandate's members, then the types they use.
    bytes private constant COMPACT_HEAD = "Compact(address arbiter,address sponsor,uint256 nonce,uint256 expires,"
        "bytes12 lockTag,address token,uint256 amount";
    bytes private constant BATCH_HEAD =
        "BatchCompact(address arbiter,address sponsor,uint256 nonce,uint256 expires,Lock[] commitments";
    bytes private constant MULTICHAIN_HEAD =
        "MultichainCompact(address sponsor,uint256 nonce,uint256 expires,Element[] elements)";
    bytes private constant ELEMENT_HEAD = "Element(address arbiter,uint256 chainId,Lock[] commitments";
    bytes private constant WITH_MANDATE = ",Mandate mandate)";

    mapping(address => mapping(uint256 => uint256)) public balanceOf;
    mapping(uint96 => address) private _allocators;
    mapping(address => mapping(uint256 => bool)) private _consumed;
    /// account => id => when its forced withdrawal may complete (0: not enabled)
    mapping(address => mapping(uint256 => uint256)) private _withdrawableAt;
    uint256 private _locked;

    modifier nonReentrant() {
        if (_locked != 0) revert ReentrantCall();
        _locked = 1;
        _;
        _locked = 0;
    }

    function name() external pure returns (string memory) {
        return "The Compact";
    }

    /// Virtual so that a contract built on this one can cache it at construction, as the real contract does (the test
    /// of the devnet's swap-in places such a one).
    function DOMAIN_SEPARATOR() public view virtual returns (bytes32) {
        return _domainSeparator(block.chainid);
    }

    // ---- allocators ----

    /// As The Compact: anyone may register an allocator that has code or is the caller, or an address proved to be
    /// a CREATE2 deployment (0xff ‖ factory ‖ salt ‖ initcode hash). Its id is derived from its address.
    function __registerAllocator(address allocator, bytes calldata proof) external returns (uint96 allocatorId) {
        bool proved =
            proof.length == 85 && proof[0] == bytes1(0xff) && address(uint160(uint256(keccak256(proof)))) == allocator;
        if (msg.sender != allocator && allocator.code.length == 0 && !proved) {
            revert InvalidRegistrationProof(allocator);
        }
        allocatorId = toAllocatorId(allocator);
        if (_allocators[allocatorId] != address(0)) revert AllocatorAlreadyRegistered(allocatorId, allocator);
        _allocators[allocatorId] = allocator;
        emit AllocatorRegistered(allocatorId, allocator);
    }

    /// compact flag (4 bits: how many leading zero nibbles the address has, 4 to 18 scored 1 to 15) ‖ the address's
    /// low 88 bits.
    function toAllocatorId(address allocator) public pure returns (uint96) {
        uint256 zeros = 0;
        while (zeros < 40 && (uint160(allocator) >> (156 - 4 * zeros)) & 0xf == 0) zeros++;
        uint256 flag = 0;
        if (zeros >= 18) flag = 15;
        else if (zeros >= 4) flag = zeros - 3;
        return uint96((flag << 88) | (uint160(allocator) & ((1 << 88) - 1)));
    }

    function hasConsumedAllocatorNonce(uint256 nonce, address allocator) external view returns (bool) {
        return _consumed[allocator][nonce];
    }

    // ---- deposits and withdrawals ----

    /// Takes `amount` of `token` from the caller and mints what arrived to `recipient` in the lock (lockTag, token).
    function depositERC20(address token, bytes12 lockTag, uint256 amount, address recipient)
        external
        nonReentrant
        returns (uint256 id)
    {
        id = _lockId(lockTag, token);
        uint256 before = _balanceOfToken(token);
        _call(
            token, abi.encodeWithSignature("transferFrom(address,address,uint256)", msg.sender, address(this), amount)
        );
        uint256 received = _balanceOfToken(token) - before;
        if (received == 0) revert InvalidDepositBalanceChange();
        _mint(recipient, id, received);
    }

    function depositNative(bytes12 lockTag, address recipient) external payable nonReentrant returns (uint256 id) {
        id = _lockId(lockTag, address(0));
        if (msg.value == 0) revert InvalidDepositBalanceChange();
        _mint(recipient, id, msg.value);
    }

    /// Starts the lock's reset period for the caller: once it passes, the caller may withdraw without the allocator.
    function enableForcedWithdrawal(uint256 id) external returns (uint256 withdrawableAt) {
        withdrawableAt = block.timestamp + resetPeriodSeconds(id);
        _withdrawableAt[msg.sender][id] = withdrawableAt;
        emit ForcedWithdrawalStatusUpdated(msg.sender, id, true, withdrawableAt);
    }

    function disableForcedWithdrawal(uint256 id) external returns (bool) {
        if (_withdrawableAt[msg.sender][id] == 0) revert ForcedWithdrawalAlreadyDisabled(msg.sender, id);
        delete _withdrawableAt[msg.sender][id];
        emit ForcedWithdrawalStatusUpdated(msg.sender, id, false, 0);
        return true;
    }

    function forcedWithdrawal(uint256 id, address recipient, uint256 amount) external nonReentrant returns (bool) {
        uint256 at = _withdrawableAt[msg.sender][id];
        if (at == 0 || at > block.timestamp) revert PrematureWithdrawal(id);
        _withdraw(msg.sender, recipient, id, amount);
        return true;
    }

    /// The lock tag's reset period (bits 252-254 of the id) in seconds: the table src/chains/lock-tag.ts holds too.
    function resetPeriodSeconds(uint256 id) public pure returns (uint256) {
        uint24[8] memory seconds_ = [
            uint24(1), 15, 1 minutes, 10 minutes, 1 hours + 5 minutes, 1 days, 7 days + 1 hours, 30 days
        ];
        return seconds_[(id >> 252) & 0x7];
    }

    // ---- allocated transfers (the service's withdrawals) ----

    /// The allocator authorizes a Compact with the caller as arbiter and sponsor over the sum of the recipients'
    /// amounts; the caller's lock pays them (lock tag 0 in a claimant: a withdrawal of the token).
    function allocatedTransfer(AllocatedTransfer calldata transfer) external nonReentrant returns (bool) {
        uint256 total = _sum(transfer.recipients);
        uint256[2][] memory idsAndAmounts = new uint256[2][](1);
        idsAndAmounts[0] = [transfer.id, total];
        bytes32 claimHash = keccak256(
            abi.encode(
                keccak256(abi.encodePacked(COMPACT_HEAD, ")")),
                msg.sender,
                msg.sender,
                transfer.nonce,
                transfer.expires,
                bytes12(uint96(transfer.id >> 160)),
                address(uint160(transfer.id)),
                total
            )
        );
        Head memory h = Head(msg.sender, transfer.nonce, transfer.expires, claimHash, bytes32(0));
        _authorized(h, transfer.allocatorData, idsAndAmounts);
        _pay(msg.sender, transfer.id, transfer.recipients);
        return true;
    }

    /// The batch form: a BatchCompact with one Lock per id, in the order given.
    function allocatedBatchTransfer(AllocatedBatchTransfer calldata transfer) external nonReentrant returns (bool) {
        uint256 count = transfer.transfers.length;
        uint256[2][] memory idsAndAmounts = new uint256[2][](count);
        for (uint256 i = 0; i < count; i++) {
            idsAndAmounts[i] = [transfer.transfers[i].id, _sum(transfer.transfers[i].portions)];
        }
        bytes32 claimHash = keccak256(
            abi.encode(
                keccak256(abi.encodePacked(BATCH_HEAD, ")", LOCK)),
                msg.sender,
                msg.sender,
                transfer.nonce,
                transfer.expires,
                _locksHash(idsAndAmounts)
            )
        );
        Head memory h = Head(msg.sender, transfer.nonce, transfer.expires, claimHash, bytes32(0));
        _authorized(h, transfer.allocatorData, idsAndAmounts);
        for (uint256 i = 0; i < count; i++) _pay(msg.sender, transfer.transfers[i].id, transfer.transfers[i].portions);
        return true;
    }

    // ---- claims: the arbiter (msg.sender) settles a compact the sponsor signed ----

    function claim(SingleClaim calldata c) external nonReentrant returns (bytes32 claimHash) {
        uint256[2][] memory idsAndAmounts = _single(c.id, c.allocatedAmount);
        bool w = bytes(c.witnessTypestring).length > 0;
        bytes memory head = abi.encode(
            keccak256(
                w
                    ? abi.encodePacked(COMPACT_HEAD, WITH_MANDATE, "Mandate(", c.witnessTypestring, ")")
                    : abi.encodePacked(COMPACT_HEAD, ")")
            ),
            msg.sender,
            c.sponsor,
            c.nonce,
            c.expires,
            bytes12(uint96(c.id >> 160)),
            address(uint160(c.id)),
            c.allocatedAmount
        );
        claimHash = keccak256(w ? abi.encodePacked(head, c.witness) : head);
        _validate(
            Head(c.sponsor, c.nonce, c.expires, claimHash, DOMAIN_SEPARATOR()),
            c.sponsorSignature,
            c.allocatorData,
            idsAndAmounts
        );
        _claimFrom(c.sponsor, c.id, c.allocatedAmount, c.claimants);
    }

    function batchClaim(BatchClaim calldata c) external nonReentrant returns (bytes32 claimHash) {
        uint256[2][] memory idsAndAmounts = _batch(c.claims, false);
        bool w = bytes(c.witnessTypestring).length > 0;
        bytes memory head = abi.encode(
            keccak256(
                w
                    ? abi.encodePacked(BATCH_HEAD, WITH_MANDATE, LOCK, "Mandate(", c.witnessTypestring, ")")
                    : abi.encodePacked(BATCH_HEAD, ")", LOCK)
            ),
            msg.sender,
            c.sponsor,
            c.nonce,
            c.expires,
            _locksHash(idsAndAmounts)
        );
        claimHash = keccak256(w ? abi.encodePacked(head, c.witness) : head);
        _validate(
            Head(c.sponsor, c.nonce, c.expires, claimHash, DOMAIN_SEPARATOR()),
            c.sponsorSignature,
            c.allocatorData,
            idsAndAmounts
        );
        _claimBatchFrom(c.sponsor, c.claims);
    }

    /// On the notarized chain (the one whose domain the sponsor signed in): this chain's element comes first, the
    /// others' hashes follow in `additionalChains`.
    function multichainClaim(MultichainClaim calldata c) external nonReentrant returns (bytes32 claimHash) {
        uint256[2][] memory idsAndAmounts = _single(c.id, c.allocatedAmount);
        bytes32 element = _elementHash(idsAndAmounts, c.witness, c.witnessTypestring);
        claimHash = _multichainHash(
            c.sponsor, c.nonce, c.expires, _elements(c.additionalChains, element, 0), c.witnessTypestring
        );
        _validate(
            Head(c.sponsor, c.nonce, c.expires, claimHash, DOMAIN_SEPARATOR()),
            c.sponsorSignature,
            c.allocatorData,
            idsAndAmounts
        );
        _claimFrom(c.sponsor, c.id, c.allocatedAmount, c.claimants);
    }

    /// On another chain of the compact: this chain's element goes after `additionalChains[chainIndex]`, the sponsor's
    /// signature is checked in the notarized chain's domain, and only multichain-scoped locks may be claimed.
    function exogenousClaim(ExogenousMultichainClaim calldata c) external nonReentrant returns (bytes32 claimHash) {
        uint256[2][] memory idsAndAmounts = _single(c.id, c.allocatedAmount);
        _multichainScope(idsAndAmounts);
        bytes32 element = _elementHash(idsAndAmounts, c.witness, c.witnessTypestring);
        bytes32[] memory elements = _exogenousElements(c.additionalChains, element, c.chainIndex);
        claimHash = _multichainHash(c.sponsor, c.nonce, c.expires, elements, c.witnessTypestring);
        _validate(
            Head(c.sponsor, c.nonce, c.expires, claimHash, _domainSeparator(c.notarizedChainId)),
            c.sponsorSignature,
            c.allocatorData,
            idsAndAmounts
        );
        _claimFrom(c.sponsor, c.id, c.allocatedAmount, c.claimants);
    }

    function batchMultichainClaim(BatchMultichainClaim calldata c) external nonReentrant returns (bytes32 claimHash) {
        uint256[2][] memory idsAndAmounts = _batch(c.claims, false);
        bytes32 element = _elementHash(idsAndAmounts, c.witness, c.witnessTypestring);
        claimHash = _multichainHash(
            c.sponsor, c.nonce, c.expires, _elements(c.additionalChains, element, 0), c.witnessTypestring
        );
        _validate(
            Head(c.sponsor, c.nonce, c.expires, claimHash, DOMAIN_SEPARATOR()),
            c.sponsorSignature,
            c.allocatorData,
            idsAndAmounts
        );
        _claimBatchFrom(c.sponsor, c.claims);
    }

    function exogenousBatchClaim(ExogenousBatchMultichainClaim calldata c)
        external
        nonReentrant
        returns (bytes32 claimHash)
    {
        uint256[2][] memory idsAndAmounts = _batch(c.claims, true);
        bytes32 element = _elementHash(idsAndAmounts, c.witness, c.witnessTypestring);
        bytes32[] memory elements = _exogenousElements(c.additionalChains, element, c.chainIndex);
        claimHash = _multichainHash(c.sponsor, c.nonce, c.expires, elements, c.witnessTypestring);
        _validate(
            Head(c.sponsor, c.nonce, c.expires, claimHash, _domainSeparator(c.notarizedChainId)),
            c.sponsorSignature,
            c.allocatorData,
            idsAndAmounts
        );
        _claimBatchFrom(c.sponsor, c.claims);
    }

    // ---- checks ----

    /// In The Compact's order: expiry, the nonce (spent here), the sponsor's signature, the allocator; then Claim.
    function _validate(
        Head memory h,
        bytes calldata sponsorSignature,
        bytes calldata allocatorData,
        uint256[2][] memory idsAndAmounts
    ) private {
        if (h.expires <= block.timestamp) revert Expired(h.expires);
        address allocator = _allocatorOf(idsAndAmounts);
        _consume(allocator, h.nonce);
        bytes32 digest = keccak256(abi.encodePacked(hex"1901", h.sponsorDomain, h.claimHash));
        if (!_validSignature(h.sponsor, digest, sponsorSignature)) {
            revert InvalidSponsorSignature(h.sponsor, h.claimHash);
        }
        _askAllocator(allocator, h, idsAndAmounts, allocatorData);
        emit Claim(h.sponsor, allocator, msg.sender, h.claimHash, h.nonce);
    }

    /// An allocated transfer's checks: no sponsor signature (the sponsor is the caller).
    function _authorized(Head memory h, bytes calldata allocatorData, uint256[2][] memory idsAndAmounts) private {
        if (h.expires <= block.timestamp) revert Expired(h.expires);
        address allocator = _allocatorOf(idsAndAmounts);
        _consume(allocator, h.nonce);
        _askAllocator(allocator, h, idsAndAmounts, allocatorData);
        emit Claim(h.sponsor, allocator, msg.sender, h.claimHash, h.nonce);
    }

    /// The allocator must answer with authorizeClaim's selector; a revert with data is passed on as it is.
    function _askAllocator(
        address allocator,
        Head memory h,
        uint256[2][] memory idsAndAmounts,
        bytes calldata allocatorData
    ) private {
        (bool ok, bytes memory ret) = allocator.call(
            abi.encodeCall(
                IClaimAllocator.authorizeClaim,
                (h.claimHash, msg.sender, h.sponsor, h.nonce, h.expires, idsAndAmounts, allocatorData)
            )
        );
        if (ok && ret.length >= 32 && bytes4(abi.decode(ret, (bytes32))) == IClaimAllocator.authorizeClaim.selector) {
            return;
        }
        if (!ok && ret.length > 0) {
            assembly {
                revert(add(ret, 32), mload(ret))
            }
        }
        revert InvalidAllocation(allocator);
    }

    /// Every lock of a claim must have the same registered allocator.
    function _allocatorOf(uint256[2][] memory idsAndAmounts) private view returns (address allocator) {
        if (idsAndAmounts.length == 0) revert NoIdsAndAmountsProvided();
        uint96 allocatorId = _allocatorIdOf(idsAndAmounts[0][0]);
        for (uint256 i = 1; i < idsAndAmounts.length; i++) {
            if (_allocatorIdOf(idsAndAmounts[i][0]) != allocatorId) revert InconsistentAllocators();
        }
        allocator = _allocators[allocatorId];
        if (allocator == address(0)) revert NoAllocatorRegistered(allocatorId);
    }

    function _consume(address allocator, uint256 nonce) private {
        if (_consumed[allocator][nonce]) revert InvalidNonce(allocator, nonce);
        _consumed[allocator][nonce] = true;
    }

    /// ECDSA (65 bytes, or 64 as EIP-2098) by the sponsor's key; failing that, ERC-1271 if the sponsor has code.
    function _validSignature(address signer, bytes32 digest, bytes calldata signature) private view returns (bool) {
        if (Signatures.recover(digest, signature) == signer && signer != address(0)) return true;
        return signer.code.length > 0 && Signatures.acceptedBy(signer, digest, signature);
    }

    /// An exogenous claim may only spend locks whose scope is multichain (the lock tag's top bit clear).
    function _multichainScope(uint256[2][] memory idsAndAmounts) private pure {
        for (uint256 i = 0; i < idsAndAmounts.length; i++) {
            if (idsAndAmounts[i][0] >> 255 != 0) revert InvalidScope(idsAndAmounts[i][0]);
        }
    }

    // ---- hashing (The Compact's EIP-712 types) ----

    function _domainSeparator(uint256 chainId) private view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256("The Compact"), keccak256("1"), chainId, address(this)));
    }

    /// keccak256 of the packed Lock hashes: an EIP-712 Lock[].
    function _locksHash(uint256[2][] memory idsAndAmounts) private pure returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](idsAndAmounts.length);
        for (uint256 i = 0; i < idsAndAmounts.length; i++) {
            uint256 id = idsAndAmounts[i][0];
            hashes[i] = keccak256(
                abi.encode(LOCK_TYPEHASH, bytes12(uint96(id >> 160)), address(uint160(id)), idsAndAmounts[i][1])
            );
        }
        return keccak256(abi.encodePacked(hashes));
    }

    /// This chain's Element: the caller as arbiter, block.chainid, the locks claimed, and the mandate's hash.
    function _elementHash(uint256[2][] memory idsAndAmounts, bytes32 witness, string calldata witnessTypestring)
        private
        view
        returns (bytes32)
    {
        if (bytes(witnessTypestring).length == 0) {
            return keccak256(
                abi.encode(
                    keccak256(abi.encodePacked(ELEMENT_HEAD, ")", LOCK)),
                    msg.sender,
                    block.chainid,
                    _locksHash(idsAndAmounts)
                )
            );
        }
        bytes32 typehash =
            keccak256(abi.encodePacked(ELEMENT_HEAD, WITH_MANDATE, LOCK, "Mandate(", witnessTypestring, ")"));
        return keccak256(abi.encode(typehash, msg.sender, block.chainid, _locksHash(idsAndAmounts), witness));
    }

    function _multichainHash(
        address sponsor,
        uint256 nonce,
        uint256 expires,
        bytes32[] memory elements,
        string calldata witnessTypestring
    ) private pure returns (bytes32) {
        bytes memory typestring = bytes(witnessTypestring).length == 0
            ? abi.encodePacked(MULTICHAIN_HEAD, ELEMENT_HEAD, ")", LOCK)
            : abi.encodePacked(MULTICHAIN_HEAD, ELEMENT_HEAD, WITH_MANDATE, LOCK, "Mandate(", witnessTypestring, ")");
        return keccak256(
            abi.encode(keccak256(typestring), sponsor, nonce, expires, keccak256(abi.encodePacked(elements)))
        );
    }

    /// The element hashes in chain order, with this chain's at `at`.
    function _elements(bytes32[] calldata others, bytes32 element, uint256 at)
        private
        pure
        returns (bytes32[] memory all)
    {
        all = new bytes32[](others.length + 1);
        for (uint256 i = 0; i < all.length; i++) {
            all[i] = i < at ? others[i] : i == at ? element : others[i - 1];
        }
    }

    function _exogenousElements(bytes32[] calldata others, bytes32 element, uint256 chainIndex)
        private
        pure
        returns (bytes32[] memory)
    {
        if (chainIndex >= others.length) revert ChainIndexOutOfRange();
        return _elements(others, element, chainIndex + 1);
    }

    function _single(uint256 id, uint256 amount) private pure returns (uint256[2][] memory idsAndAmounts) {
        idsAndAmounts = new uint256[2][](1);
        idsAndAmounts[0] = [id, amount];
    }

    function _batch(BatchClaimComponent[] calldata claims, bool exogenous)
        private
        pure
        returns (uint256[2][] memory idsAndAmounts)
    {
        idsAndAmounts = new uint256[2][](claims.length);
        for (uint256 i = 0; i < claims.length; i++) idsAndAmounts[i] = [claims[i].id, claims[i].allocatedAmount];
        if (exogenous) _multichainScope(idsAndAmounts);
    }

    // ---- balances ----

    function _claimFrom(address sponsor, uint256 id, uint256 allocatedAmount, Component[] calldata claimants) private {
        uint256 total = _sum(claimants);
        if (total > allocatedAmount) revert AllocatedAmountExceeded(allocatedAmount, total);
        _pay(sponsor, id, claimants);
    }

    function _claimBatchFrom(address sponsor, BatchClaimComponent[] calldata claims) private {
        for (uint256 i = 0; i < claims.length; i++) {
            _claimFrom(sponsor, claims[i].id, claims[i].allocatedAmount, claims[i].portions);
        }
    }

    function _sum(Component[] calldata components) private pure returns (uint256 total) {
        for (uint256 i = 0; i < components.length; i++) total += components[i].amount;
    }

    /// Each claimant's lock tag says what it gets: 0 the token itself, the lock's own tag the ERC-6909 balance,
    /// another tag the balance moved into that lock (its allocator must be registered).
    function _pay(address from, uint256 id, Component[] calldata components) private {
        for (uint256 i = 0; i < components.length; i++) {
            uint256 claimant = components[i].claimant;
            uint256 amount = components[i].amount;
            address recipient = address(uint160(claimant));
            uint256 tag = claimant >> 160;
            if (tag == 0) {
                _withdraw(from, recipient, id, amount);
            } else if (tag == id >> 160) {
                _debit(from, id, amount);
                balanceOf[recipient][id] += amount;
                emit Transfer(msg.sender, from, recipient, id, amount);
            } else {
                uint256 newId = (tag << 160) | uint160(id);
                _allocatorIdRegistered(newId);
                _debit(from, id, amount);
                emit Transfer(msg.sender, from, address(0), id, amount);
                _mint(recipient, newId, amount);
            }
        }
    }

    function _withdraw(address from, address recipient, uint256 id, uint256 amount) private {
        _debit(from, id, amount);
        emit Transfer(msg.sender, from, address(0), id, amount);
        address token = address(uint160(id));
        if (token == address(0)) {
            (bool ok,) = recipient.call{ value: amount }("");
            if (!ok) revert TransferFailed(token);
        } else {
            _call(token, abi.encodeWithSignature("transfer(address,uint256)", recipient, amount));
        }
    }

    function _mint(address to, uint256 id, uint256 amount) private {
        balanceOf[to][id] += amount;
        emit Transfer(msg.sender, address(0), to, id, amount);
    }

    function _debit(address from, uint256 id, uint256 amount) private {
        uint256 balance = balanceOf[from][id];
        if (balance < amount) revert InsufficientBalance(from, id);
        balanceOf[from][id] = balance - amount;
    }

    function _lockId(bytes12 lockTag, address token) private view returns (uint256 id) {
        id = (uint256(uint96(lockTag)) << 160) | uint160(token);
        _allocatorIdRegistered(id);
    }

    function _allocatorIdOf(uint256 id) private pure returns (uint96) {
        return uint96((id >> 160) & ((1 << 92) - 1));
    }

    function _allocatorIdRegistered(uint256 id) private view {
        uint96 allocatorId = _allocatorIdOf(id);
        if (_allocators[allocatorId] == address(0)) revert NoAllocatorRegistered(allocatorId);
    }

    /// A token call that returns nothing counts as success only if the token has code.
    function _call(address token, bytes memory data) private {
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok || (ret.length == 0 ? token.code.length == 0 : !abi.decode(ret, (bool)))) revert TransferFailed(token);
    }

    function _balanceOfToken(address token) private view returns (uint256) {
        (bool ok, bytes memory ret) = token.staticcall(abi.encodeWithSignature("balanceOf(address)", address(this)));
        if (!ok || ret.length < 32) revert TransferFailed(token);
        return abi.decode(ret, (uint256));
    }
}
