// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IERC20 {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// The smallest filler: a relayer pays an intent's recipient on the destination chain and the intent's nonce is
/// emitted with it, which the chain indexer reports as the intent's fill (INDEXER_FILL_EVENT_<chainId>).
contract Filler {
    event Filled(uint256 indexed nonce, address indexed recipient, address token, uint256 amount);

    function fill(uint256 nonce, address token, address recipient, uint256 amount) external {
        require(IERC20(token).transferFrom(msg.sender, recipient, amount), "transfer failed");
        emit Filled(nonce, recipient, token, amount);
    }
}
