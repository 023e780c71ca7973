import { allocatorId, compactFlag, lockTagFor } from '../../src/chains/lock-tag';

test('reproduces The Compact worked example (Rhinestone dev allocator, scope 0, reset period 6)', () => {
  expect(lockTagFor('0xc7732071e3a1be6cfce6d13bb05699a31a457679', 0, 6)).toBe('0x60e6d13bb05699a31a457679');
  expect(lockTagFor('0x22376d253286450b3622270345Cccc564C2a5C9B', 0, 6)).toBe('0x6022270345cccc564c2a5c9b');
});

test('compact flag counts leading zero nibbles (0-3 → 0, 4-17 → n-3, 18+ → 15)', () => {
  expect(compactFlag('0x0001000000000000000000000000000000000000')).toBe(0);
  expect(compactFlag('0x0000100000000000000000000000000000000000')).toBe(1);
  expect(compactFlag('0x0000000000000000000100000000000000000000')).toBe(15);
  expect(allocatorId('0x0000100000000000000000000000000000000001')).toBe((1n << 88n) | 1n);
});

test('chain-specific scope sets the top bit', () => {
  expect(lockTagFor('0xc7732071e3a1be6cfce6d13bb05699a31a457679', 1, 0).slice(0, 3)).toBe('0x8');
});
