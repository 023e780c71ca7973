import { EntitySchema } from 'typeorm';

/** Amount columns are numeric(78,0) read as decimal strings (never JS numbers); addresses are stored lowercase. */
const amount = { type: 'numeric', precision: 78, scale: 0 } as const;

export interface Project { id: string; name: string; createdAt: Date }
export const ProjectEntity = new EntitySchema<Project>({
  name: 'Project',
  tableName: 'projects',
  columns: {
    id: { type: 'uuid', primary: true, generated: 'uuid' },
    name: { type: 'text' },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
  },
});

export interface ApiKey { id: string; projectId: string; keyHash: string; keyPrefix: string; createdAt: Date; revokedAt: Date | null }
export const ApiKeyEntity = new EntitySchema<ApiKey>({
  name: 'ApiKey',
  tableName: 'api_keys',
  columns: {
    id: { type: 'uuid', primary: true, generated: 'uuid' },
    projectId: { name: 'project_id', type: 'uuid' },
    keyHash: { name: 'key_hash', type: 'text', unique: true },
    keyPrefix: { name: 'key_prefix', type: 'text' },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
    revokedAt: { name: 'revoked_at', type: 'timestamptz', nullable: true },
  },
});

export interface IndexerEvent { id: string; type: string; payload: unknown; receivedAt: Date }
export const IndexerEventEntity = new EntitySchema<IndexerEvent>({
  name: 'IndexerEvent',
  tableName: 'indexer_events',
  columns: {
    id: { type: 'text', primary: true },
    type: { type: 'text' },
    payload: { type: 'jsonb' },
    receivedAt: { name: 'received_at', type: 'timestamptz', createDate: true },
  },
});

export interface WalletBalance { chainId: string; account: string; token: string; amount: string; blockNumber: string; updatedAt: Date }
const balanceColumns = {
  chainId: { name: 'chain_id', type: 'bigint', primary: true },
  account: { type: 'text', primary: true },
  token: { type: 'text', primary: true },
  amount,
  blockNumber: { name: 'block_number', type: 'bigint' },
  updatedAt: { name: 'updated_at', type: 'timestamptz', updateDate: true },
} as const;
export const WalletBalanceEntity = new EntitySchema<WalletBalance>({ name: 'WalletBalance', tableName: 'wallet_balances', columns: balanceColumns });

export interface LockBalance extends WalletBalance { lockTag: string }
export const LockBalanceEntity = new EntitySchema<LockBalance>({
  name: 'LockBalance',
  tableName: 'lock_balances',
  // A wallet balance's columns, with the lock tag in the key.
  columns: { ...balanceColumns, lockTag: { name: 'lock_tag', type: 'text', primary: true } },
});

export const entities = [ProjectEntity, ApiKeyEntity, IndexerEventEntity, WalletBalanceEntity, LockBalanceEntity];
