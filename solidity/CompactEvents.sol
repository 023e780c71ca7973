// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Stands in for The Compact where its own code cannot be deployed (the tests and `npm run devnet`): it keeps ERC-6909
/// balances per (account, lock id) and emits The Compact's events with their exact signatures, so the chain indexer
/// reads it as it reads The Compact. Anyone may call anything: it holds no funds and enforces nothing.
contract CompactEvents {
    /// ERC-6909's Transfer as The Compact declares it: a deposit mints (from = 0), a withdrawal burns (to = 0).
    event Transfer(address by, address indexed from, address indexed to, uint256 indexed id, uint256 amount);
    event Claim(
        address indexed sponsor, address indexed allocator, address indexed arbiter, bytes32 claimHash, uint256 nonce
    );
    event ForcedWithdrawalStatusUpdated(
        address indexed account, uint256 indexed id, bool activating, uint256 withdrawableAt
    );

    mapping(address => mapping(uint256 => uint256)) public balanceOf;

    function deposit(address to, uint256 id, uint256 amount) external {
        balanceOf[to][id] += amount;
        emit Transfer(msg.sender, address(0), to, id, amount);
    }

    function withdraw(address from, uint256 id, uint256 amount) external {
        balanceOf[from][id] -= amount;
        emit Transfer(msg.sender, from, address(0), id, amount);
    }

    /// A processed claim: the sponsor's lock pays the claimant (as an ERC-6909 transfer) and Claim names the nonce.
    function claim(
        address sponsor,
        address allocator,
        uint256 nonce,
        uint256 id,
        uint256 amount,
        address claimant
    ) external {
        balanceOf[sponsor][id] -= amount;
        balanceOf[claimant][id] += amount;
        emit Transfer(msg.sender, sponsor, claimant, id, amount);
        emit Claim(sponsor, allocator, msg.sender, keccak256(abi.encode(sponsor, nonce, id, amount)), nonce);
    }

    /// Load for the indexer's benchmark: `count` mints of `amount` of lock `id`, to accounts 1, 2, ... `count`.
    function depositMany(uint256 count, uint256 id, uint256 amount) external {
        for (uint256 i = 1; i <= count; i++) {
            balanceOf[address(uint160(i))][id] += amount;
            emit Transfer(msg.sender, address(0), address(uint160(i)), id, amount);
        }
    }

    function setForcedWithdrawal(address account, uint256 id, bool activating, uint256 withdrawableAt) external {
        emit ForcedWithdrawalStatusUpdated(account, id, activating, withdrawableAt);
    }
}
