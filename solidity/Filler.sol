// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IERC20 {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// The smallest filler: a relayer pays an intent's recipient on the destination chain and the intent's nonce is
/// emitted with it, which the chain indexer reports as the intent's fill (INDEXER_FILL_EVENT_<chainId>). Anyone may
/// call it with anything: the service, not this contract, checks that a fill paid what its intent's mandate asks.
contract Filler {
    event Filled(uint256 indexed nonce, address indexed recipient, address token, uint256 amount);

    function fill(uint256 nonce, address token, address recipient, uint256 amount) external {
        _pay(nonce, token, recipient, amount);
    }

    /// Pays a mandate's `tokenOut` as the intent states it, (lock tag ‖ token, amount) pairs, in one transaction:
    /// the indexer adds up a transaction's fills of one nonce, so an intent of several tokens is filled at once.
    function fillTokenOut(uint256 nonce, address recipient, uint256[2][] calldata tokenOut) external {
        for (uint256 i = 0; i < tokenOut.length; i++) {
            _pay(nonce, address(uint160(tokenOut[i][0])), recipient, tokenOut[i][1]);
        }
    }

    function _pay(uint256 nonce, address token, address recipient, uint256 amount) private {
        require(IERC20(token).transferFrom(msg.sender, recipient, amount), "transfer failed");
        emit Filled(nonce, recipient, token, amount);
    }
}
