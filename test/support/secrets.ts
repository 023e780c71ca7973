/** Fixed test keys (Anvil's well-known dev accounts), so signatures in tests are reproducible. */
export const TEST_SECRETS = {
  INDEXER_API_KEY: 'idx_test_key',
  COMPLIANCE_SESSION_KEY: 'test-compliance-session-key-0123456789abcdef',
  ORCHESTRATOR_PRIVATE_KEY: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  ALLOCATOR_PRIVATE_KEY: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
};
