/**
 * "Nothing a refused request touched has changed": the stored document of one record, read from
 * the service's own database before and after the request. Black-box about the schema, like
 * side-effects.ts: the record is found by its id in whichever collection holds it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ObjectId, type Db, type Document } from 'mongodb';
import type { Reply } from './http';
import { documentsMatching } from './side-effects';

/** The stored document with this id (the password hash, `updatedAt` and all), or null when it is gone. */
export async function storedRecord(db: Db, id: string): Promise<Document | null> {
  const found = await documentsMatching(db, { _id: new ObjectId(id) });
  if (found.length > 1) throw new Error(`${found.length} documents have the id ${id}`);
  return found[0] ?? null;
}

/** Sends `request` and asserts that the record `id` is stored exactly as before it; returns the reply. */
export async function untouched(db: Db, id: string, request: () => Promise<Reply>): Promise<Reply> {
  const before = await storedRecord(db, id);
  if (!before) throw new Error(`no record ${id} to watch`);
  const reply = await request();
  expect(await storedRecord(db, id)).toEqual(before);
  return reply;
}

/** A live password-reset token of `userId`, stored as identity stores one (its hash), without going through the mail. */
export async function aStoredResetToken(identityDb: Db, userId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await identityDb.collection('password_resets').insertOne({
    _id: new ObjectId(),
    userId: new ObjectId(userId),
    tokenHash: createHash('sha256').update(token).digest('hex'),
    expiresAt: new Date(Date.now() + 600_000),
    createdAt: new Date(),
    mail: null,
  });
  return token;
}

/**
 * A live e-mail verification token of `userId` for `address`, stored as identity stores one; the
 * user's earlier link (the sign-up's) goes, as identity keeps one live link per user.
 */
export async function aStoredVerificationToken(identityDb: Db, userId: string, address: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const links = identityDb.collection('email_verifications');
  await links.deleteMany({ userId: new ObjectId(userId) });
  await links.insertOne({
    _id: new ObjectId(),
    userId: new ObjectId(userId),
    liveFor: new ObjectId(userId),
    address,
    tokenHash: createHash('sha256').update(token).digest('hex'),
    expiresAt: new Date(Date.now() + 600_000),
    createdAt: new Date(),
    mail: null,
  });
  return token;
}
