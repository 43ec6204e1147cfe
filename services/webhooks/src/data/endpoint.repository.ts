import {
  createListingCursors,
  findPage,
  parseObjectId,
  type ListingCursors,
  type ListingPage,
  type ListingQuery,
} from '@restgate/shared/data';
import { ENDPOINT_LISTING } from '../http/webhook.schemas';
import { ObjectId, type Collection, type Db } from 'mongodb';

/** A signing secret as stored: sealed, and (once rotated away) when it stops signing. */
export interface StoredSecret {
  sealed: string;
  createdAt: Date;
  expiresAt: Date | null;
}

export interface EndpointDocument {
  _id: ObjectId;
  url: string;
  events: string[];
  active: boolean;
  description: string;
  /** The current secret first; a rotated-away one after it until it expires. */
  secrets: StoredSecret[];
  createdAt: Date;
  updatedAt: Date;
  /** Since when every attempt at this endpoint has failed; null after a success. */
  failingSince: Date | null;
  /** Why and when the service turned the endpoint off; null while it is on or an admin turned it off. */
  disabled: { at: Date; reason: string } | null;
}

export type Endpoint = EndpointDocument;

export interface EndpointChanges {
  url?: string;
  events?: string[];
  active?: boolean;
  description?: string;
}

export class EndpointRepository {
  readonly collection: Collection<EndpointDocument>;
  private readonly cursors: ListingCursors;

  constructor(db: Db, cursorSecret: string) {
    this.collection = db.collection<EndpointDocument>('endpoints');
    this.cursors = createListingCursors(cursorSecret, 'webhook-endpoints');
  }

  list(query: ListingQuery): Promise<ListingPage & { docs: EndpointDocument[] }> {
    return findPage(
      {
        collection: this.collection,
        cursors: this.cursors,
        searched: ['url', 'description'],
        filters: ENDPOINT_LISTING.filters ?? [],
        alwaysPresent: ['createdAt'],
      },
      { ...query, fields: undefined },
    );
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ createdAt: -1, _id: -1 });
  }

  count(): Promise<number> {
    return this.collection.countDocuments({});
  }

  async insert(doc: EndpointDocument): Promise<Endpoint> {
    await this.collection.insertOne(doc);
    return doc;
  }

  async get(id: string): Promise<Endpoint | null> {
    const _id = parseObjectId(id);
    return _id ? this.collection.findOne({ _id }) : null;
  }

  all(): Promise<Endpoint[]> {
    return this.collection.find({}).sort({ createdAt: -1, _id: -1 }).toArray();
  }

  /** Applies `changes`; turning an endpoint on clears why it was turned off. */
  async update(id: string, changes: EndpointChanges, now: Date): Promise<Endpoint | null> {
    const _id = parseObjectId(id);
    if (!_id) return null;
    const set: Partial<EndpointDocument> = { ...changes, updatedAt: now };
    if (changes.active === true) Object.assign(set, { disabled: null, failingSince: null });
    return this.collection.findOneAndUpdate({ _id }, { $set: set }, { returnDocument: 'after' });
  }

  async setSecrets(id: ObjectId, secrets: StoredSecret[], now: Date): Promise<Endpoint | null> {
    return this.collection.findOneAndUpdate({ _id: id }, { $set: { secrets, updatedAt: now } }, { returnDocument: 'after' });
  }

  async remove(id: string): Promise<Endpoint | null> {
    const _id = parseObjectId(id);
    return _id ? this.collection.findOneAndDelete({ _id }) : null;
  }

  /** A success ends a failing streak. */
  async succeeded(id: ObjectId): Promise<void> {
    await this.collection.updateOne({ _id: id, failingSince: { $ne: null } }, { $set: { failingSince: null } });
  }

  /**
   * A failed attempt: starts the failing streak, or, when the streak is older than `disableAfterMs`,
   * turns the endpoint off saying why. True when this call turned it off.
   */
  async failed(id: ObjectId, at: Date, what: string, disableAfterMs: number): Promise<boolean> {
    await this.collection.updateOne({ _id: id, failingSince: null }, { $set: { failingSince: at } });
    const since = new Date(at.getTime() - disableAfterMs);
    const reason = `every delivery failed for more than ${spoken(disableAfterMs)}; the last: ${what}`;
    const res = await this.collection.updateOne(
      { _id: id, active: true, failingSince: { $lte: since } },
      { $set: { active: false, disabled: { at, reason }, updatedAt: at } },
    );
    return res.modifiedCount === 1;
  }
}

export const newEndpointId = () => new ObjectId();

/** 432000000 → "5 days", 300 → "300 ms". */
function spoken(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ];
  for (const [size, name] of units) if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms === size ? '' : 's'}`;
  return `${ms} ms`;
}
