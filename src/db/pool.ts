import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { Db } from './types';

/** The pg pool under a `Db`, for a connection held apart from it (LISTEN): the one reach under TypeORM. */
export const poolOf = (db: Db): Pool => ((db as DataSource).driver as PostgresDriver).master;
