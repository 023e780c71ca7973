import { EntitySchema } from 'typeorm';

export interface Project {
  id: string;
  name: string;
  createdAt: Date;
}
export const ProjectEntity = new EntitySchema<Project>({
  name: 'Project',
  tableName: 'projects',
  columns: {
    id: { type: 'uuid', primary: true, generated: 'uuid' },
    name: { type: 'text' },
    createdAt: { name: 'created_at', type: 'timestamptz', createDate: true },
  },
});

export interface ApiKey {
  id: string;
  projectId: string;
  keyHash: string;
  keyPrefix: string;
  createdAt: Date;
  revokedAt: Date | null;
}
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

/** The tables read through typeorm's repositories; every other table is reached with SQL in its feature's store. */
export const entities = [ProjectEntity, ApiKeyEntity];
