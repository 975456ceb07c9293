// A bench's own migrated database (plans seeded) and Redis key prefix, made at its start and removed at its end.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createDatabase, migrate, seedPlans, type Database } from '@hashwatch/db';
import { databaseUrlFor, deletePrefixKeys } from '@hashwatch/testing';
import { admin } from './bench-support';

export interface Scratch {
  /** DATABASE_URL of the bench's database. */
  databaseUrl: string;
  /** REDIS_URL, and the QUEUE_PREFIX its keys are under. */
  redisUrl: string;
  prefix: string;
  db: Database;
  /** Closes the pool, drops the database (whoever is still connected) and deletes the prefix's keys. */
  dispose(): Promise<void>;
}

/** Creates `hw_bench_<label>_<random>`, migrated and with the plans seeded, and a prefix of its own. */
export async function openScratch(label: string, poolSize = 2): Promise<Scratch> {
  const name = `hw_bench_${label}_${randomBytes(4).toString('hex')}`;
  const prefix = `hwbench-${randomBytes(4).toString('hex')}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const drop = () => admin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  await admin((client) => client.query(`CREATE DATABASE "${name}"`));
  const db = createDatabase(databaseUrlFor(name), { max: poolSize });
  try {
    await migrate(db.pool);
    await seedPlans(db.pool);
  } catch (error) {
    await db.close();
    await drop();
    throw error;
  }
  return {
    databaseUrl: databaseUrlFor(name),
    redisUrl,
    prefix,
    db,
    async dispose() {
      await db.close();
      await drop();
      const redis = new Redis(redisUrl);
      try {
        await deletePrefixKeys(redis, prefix);
      } finally {
        redis.disconnect();
      }
    },
  };
}
