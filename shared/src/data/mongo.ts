import { MongoClient, ObjectId, type Db } from 'mongodb';
import type { Logger } from 'pino';
import type { ReadinessCheck } from '../health';

export interface MongoHandle {
  client: MongoClient;
  db: Db;
  readiness: ReadinessCheck;
  close: () => Promise<void>;
}

/**
 * A client that gives up fast on a database that is gone, and not on one that is slow. Server
 * selection waits 2 s, so a database that refuses connections (stopped, unreachable) costs a fast
 * 503 rather than a 30 s hang. The connect timeout is longer on purpose: the driver's monitor
 * also times its heartbeat with it, and a timed-out heartbeat (or a timed-out handshake of a new
 * pooled connection) clears the pool and aborts every operation in flight, so on a busy machine a
 * handshake that took 2 s would fail every request the replica held.
 * Does not connect: the driver connects on first use and reconnects by itself.
 */
export function createMongo(url: string, dbName: string, logger: Logger): MongoHandle {
  const client = new MongoClient(url, {
    serverSelectionTimeoutMS: 2_000,
    connectTimeoutMS: 10_000,
    socketTimeoutMS: 20_000,
    maxPoolSize: 20,
    appName: dbName,
  });
  client.on('serverHeartbeatFailed', () => logger.debug('mongo heartbeat failed'));
  const db = client.db(dbName);
  return {
    client,
    db,
    readiness: { name: 'mongodb', check: () => db.command({ ping: 1 }) },
    close: () => client.close(),
  };
}

/** Retries `fn` (index creation at start, say) until it succeeds or `timeoutMs` passes. */
export async function retryUntil<T>(fn: () => Promise<T>, timeoutMs: number, logger: Logger, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      logger.warn({ attempt, err: (err as Error).message }, `${what} failed, retrying`);
      await new Promise((r) => setTimeout(r, Math.min(250 * attempt, 2_000)));
    }
  }
}

/** Parses a 24-hex id; anything else is `null` (so the caller answers 404, not 400). */
export function parseObjectId(id: string): ObjectId | null {
  return /^[0-9a-f]{24}$/i.test(id) ? new ObjectId(id) : null;
}

/** MongoDB's duplicate-key error (FerretDB uses the same code). */
export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}

/**
 * A write on a unique key as a claim: true when it was written, false when the key was taken.
 * Of any number of racing inserts of one key exactly one wins, on FerretDB too, whose conditional
 * updates are read-then-write and may all report a change.
 */
export async function writeUnique(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}
