import type { Db } from 'mongodb';
import { ConfigError, loadConfig, type AppConfig, type MongoConfig } from '../config';
import { MongoConnection } from '../store/mongo/connection';
import { MongoStore } from '../store/mongo/mongo-store';
import { AdminError, exitCodes } from './exit-codes';

/** The settings the commands use: MongoDB (required) and the wallet limits, from the server's own configuration. */
export function adminConfig(env: NodeJS.ProcessEnv): AppConfig & { mongo: MongoConfig } {
  let config: AppConfig;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new AdminError(error.message, exitCodes.usage);
    throw error;
  }
  if (!config.mongo) {
    throw new AdminError(
      'loyalty-admin works on a MongoDB database: set MONGODB_URI (and MONGODB_DB, default "loyalty"). The embedded store lives only inside a server process.',
      exitCodes.usage,
    );
  }
  return { ...config, mongo: config.mongo };
}

/** MongoDB when configured, else null (commands that can do without a database). */
export function optionalMongo(env: NodeJS.ProcessEnv): MongoConfig | null {
  try {
    return loadConfig(env).mongo;
  } catch (error) {
    if (error instanceof ConfigError) throw new AdminError(error.message, exitCodes.usage);
    throw error;
  }
}

function connectionOptions(mongo: MongoConfig) {
  // A command runs once: no watchdog replacing clients under it.
  return { uri: mongo.uri, dbName: mongo.dbName, serverSelectionTimeoutMS: mongo.serverSelectionTimeoutMs, socketTimeoutMS: mongo.socketTimeoutMs, watchdogIntervalMs: 0 };
}

/** The store as a server sees it (the current data layout required), for the length of `work`. */
export async function withStore<T>(mongo: MongoConfig, work: (store: MongoStore) => Promise<T>): Promise<T> {
  const store = await MongoStore.connect(connectionOptions(mongo));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The database whatever layout it holds (check, migrate, indexes), for the length of `work`. */
export async function withDatabase<T>(mongo: MongoConfig, work: (db: Db, ping: () => Promise<void>) => Promise<T>): Promise<T> {
  const connection = await MongoConnection.open(connectionOptions(mongo));
  try {
    return await work(connection.db, () => connection.ping());
  } finally {
    await connection.close();
  }
}
