import { isDuplicateKeyError } from '@restgate/shared/data';
import type { Collection, Filter, ObjectId, OptionalUnlessRequiredId } from 'mongodb';

/** What a mailed-link document (a reset, a verification) needs for `replaceLiveLink`. */
export interface LiveLinkFields {
  _id: ObjectId;
  userId: ObjectId | null;
  /**
   * The user again, on a user's link only (absent on stand-ins), under a unique index: a user has
   * one live link of a kind at most, whatever number of requests race.
   */
  liveFor?: ObjectId;
}

/** The index that holds a user to one live link (sparse: stand-ins have no `liveFor`). */
export async function ensureLiveLinkIndex<D extends LiveLinkFields>(rows: Collection<D>): Promise<void> {
  await rows.createIndex({ liveFor: 1 }, { unique: true, sparse: true, name: 'live_for_unique' });
}

/**
 * Ends the user's earlier links and stores `doc` (with its mail) as the only live one. Two steps,
 * but the unique index on `liveFor` decides between racing requests: a delete-then-insert race
 * can't leave two links (FerretDB runs a conditional update as read-then-write, so no
 * compare-and-set would); the request whose insert meets the key loses, and the link of the
 * request that won stands, with its mail. False for the loser: nothing of its own was stored.
 */
export async function replaceLiveLink<D extends LiveLinkFields>(rows: Collection<D>, doc: D & { userId: ObjectId }): Promise<boolean> {
  await rows.deleteMany({ userId: doc.userId } as Filter<D>);
  try {
    await rows.insertOne({ ...doc, liveFor: doc.userId } as OptionalUnlessRequiredId<D>);
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}
