// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IDepositCompact {
    function depositERC20(address token, bytes12 lockTag, uint256 amount, address recipient)
        external
        returns (uint256 id);
}

interface IApprove {
    function approve(address spender, uint256 value) external returns (bool);
}

/// Load for the chain indexer's benches: many real deposits in one transaction, each a Transfer (mint) log of the
/// compact. It deposits tokens it holds, so whoever loads a chain mints them to it first.
contract DepositBatcher {
    /// `count` deposits of `amount` of `token` into the lock (lockTag, token) of `compact`, for accounts 1 to `count`.
    function depositMany(address compact, address token, bytes12 lockTag, uint256 count, uint256 amount) external {
        IApprove(token).approve(compact, count * amount);
        for (uint256 i = 1; i <= count; i++) {
            IDepositCompact(compact).depositERC20(token, lockTag, amount, address(uint160(i)));
        }
    }
}
