// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A token that is not one: it holds no balances and only emits ERC-20 `Transfer` logs, as many as asked, at about
/// 2k gas each. What an attacker points at a deposit account to make the service do work for nothing.
contract TransferSpam {
    event Transfer(address indexed from, address indexed to, uint256 value);

    function spam(address to, uint256 count) external {
        for (uint256 i = 0; i < count; i++) emit Transfer(msg.sender, to, i + 1);
    }
}
