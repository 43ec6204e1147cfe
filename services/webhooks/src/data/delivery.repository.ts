import {
  createListingCursors,
  findPage,
  parseObjectId,
  type ListingCursors,
  type ListingPage,
  type ListingQuery,
} from '@restgate/shared/data';
import { ObjectId, type Collection, type Db } from 'mongodb';
import { DELIVERY_FILTERS, type DeliveryStatus } from '../domain/delivery-status';
import type { Attempt } from '../domain/outcome';

/** The statuses of a delivery that will still be sent. */
const OPEN: DeliveryStatus[] = ['pending', 'retrying'];

export interface DeliveryDocument {
  _id: ObjectId;
  endpointId: ObjectId;
  /** The change event's id: the `webhook-id` of every attempt. */
  eventId: string;
  type: string;
  /** One record's deliveries to one endpoint share it, and go in `seq` order. */
  orderKey: string;
  seq: number;
  /** The body every attempt sends. */
  body: string;
  /** The request that made the change. */
  requestId: string | null;
  status: DeliveryStatus;
  /** When the next attempt is due; null once no attempt will follow. */
  nextAt: Date | null;
  /** Until when one dispatcher holds the delivery (an attempt in flight). */
  leaseUntil: Date;
  leaseToken: string | null;
  attempts: Attempt[];
  createdAt: Date;
  updatedAt: Date;
}

export type NewDelivery = Pick<DeliveryDocument, 'endpointId' | 'eventId' | 'type' | 'orderKey' | 'seq' | 'body' | 'requestId'>;

const EPOCH = new Date(0);

export class DeliveryRepository {
  readonly collection: Collection<DeliveryDocument>;
  private readonly cursors: ListingCursors;

  constructor(db: Db, cursorSecret: string) {
    this.collection = db.collection<DeliveryDocument>('deliveries');
    this.cursors = createListingCursors(cursorSecret, 'webhook-deliveries');
  }

  async ensureIndexes(): Promise<void> {
    await Promise.all([
      // A redelivered event finds its deliveries already written.
      this.collection.createIndex({ endpointId: 1, eventId: 1 }, { unique: true }),
      this.collection.createIndex({ nextAt: 1 }),
      this.collection.createIndex({ orderKey: 1, seq: 1 }),
      this.collection.createIndex({ endpointId: 1, createdAt: -1, _id: -1 }),
      this.collection.createIndex({ createdAt: 1 }),
    ]);
  }

  /** Writes the deliveries of one event; those already written (a redelivered event) stay as they are. */
  async add(deliveries: NewDelivery[], now: Date): Promise<void> {
    if (deliveries.length === 0) return;
    const docs: DeliveryDocument[] = deliveries.map((d) => ({
      _id: new ObjectId(),
      ...d,
      status: 'pending',
      nextAt: now,
      leaseUntil: EPOCH,
      leaseToken: null,
      attempts: [],
      createdAt: now,
      updatedAt: now,
    }));
    try {
      await this.collection.insertMany(docs, { ordered: false });
    } catch (err) {
      const writeErrors = (err as { writeErrors?: Array<{ code?: number }> | { code?: number } }).writeErrors;
      const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
      if (list.length === 0 || list.some((e) => e.code !== 11000)) throw err;
    }
  }

  /**
   * Open deliveries due by `now`, not leased, of the endpoints in `endpoints`, oldest first. A
   * settled delivery has no `nextAt`, so the index on it holds only what may still be sent.
   */
  due(now: Date, endpoints: ObjectId[], limit: number): Promise<DeliveryDocument[]> {
    return this.collection
      .find({ nextAt: { $lte: now }, leaseUntil: { $lte: now }, endpointId: { $in: endpoints } }, { projection: { body: 0, attempts: 0 } })
      .sort({ nextAt: 1, _id: 1 })
      .limit(limit)
      .toArray();
  }

  /** The earliest open delivery of each order key: only that one may be sent. */
  async heads(orderKeys: string[]): Promise<Map<string, { id: ObjectId; nextAt: Date | null }>> {
    const open = await this.collection
      .find({ orderKey: { $in: orderKeys }, nextAt: { $ne: null } }, { projection: { orderKey: 1, seq: 1, createdAt: 1, nextAt: 1 } })
      .sort({ seq: 1, createdAt: 1, _id: 1 })
      .toArray();
    const heads = new Map<string, { id: ObjectId; nextAt: Date | null }>();
    for (const d of open) if (!heads.has(d.orderKey)) heads.set(d.orderKey, { id: d._id, nextAt: d.nextAt });
    return heads;
  }

  /** Deliveries waiting behind an earlier one of their record that is not due before `until`: not due before then either. */
  async defer(ids: ObjectId[], until: Date): Promise<void> {
    await this.collection.updateMany({ _id: { $in: ids }, status: { $in: OPEN } }, { $set: { nextAt: until } });
  }

  /**
   * Takes due deliveries for one attempt each, until `until`, under `token`: one write for the
   * batch. Returns those this call took (another dispatcher may have taken some first).
   */
  async leaseMany(ids: ObjectId[], now: Date, until: Date, token: string): Promise<DeliveryDocument[]> {
    if (ids.length === 0) return [];
    await this.collection.updateMany(
      { _id: { $in: ids }, nextAt: { $ne: null }, leaseUntil: { $lte: now } },
      { $set: { leaseUntil: until, leaseToken: token } },
    );
    return this.collection.find({ _id: { $in: ids }, leaseToken: token }).toArray();
  }

  /** Logs an attempt made under the lease `token`, and what follows it. */
  async record(id: ObjectId, token: string, attempt: Attempt, status: DeliveryStatus, nextAt: Date | null): Promise<void> {
    // One update per attempt: FerretDB runs a many-statement update (bulkWrite) statement by
    // statement over its connection pool, which stalls under load, so attempts are not batched.
    await this.collection.updateOne(
      { _id: id, leaseToken: token },
      { $push: { attempts: attempt }, $set: { status, nextAt, leaseUntil: EPOCH, leaseToken: null, updatedAt: attempt.at } },
    );
  }

  byEvent(endpointId: ObjectId, eventId: string): Promise<DeliveryDocument | null> {
    return this.collection.findOne({ endpointId, eventId });
  }

  async get(endpointId: ObjectId, id: string): Promise<DeliveryDocument | null> {
    const _id = parseObjectId(id);
    return _id ? this.collection.findOne({ _id, endpointId }) : null;
  }

  /** Makes a delivery due now, whatever became of it (a retry by hand). */
  retryNow(endpointId: ObjectId, id: string, now: Date): Promise<DeliveryDocument | null> {
    const _id = parseObjectId(id);
    if (!_id) return Promise.resolve(null);
    return this.collection.findOneAndUpdate(
      { _id, endpointId },
      { $set: { status: 'pending', nextAt: now, updatedAt: now } },
      { returnDocument: 'after' },
    );
  }

  list(endpointId: ObjectId, query: ListingQuery): Promise<ListingPage & { docs: DeliveryDocument[] }> {
    return findPage(
      {
        collection: this.collection,
        cursors: this.cursors,
        searched: ['type', 'eventId'],
        filters: DELIVERY_FILTERS,
        where: { endpointId },
        projection: { body: 0 },
        alwaysPresent: ['createdAt'],
      },
      { ...query, fields: undefined },
    );
  }

  /** Deletes what the log no longer keeps: deliveries settled before `before`. */
  async purge(before: Date): Promise<number> {
    const res = await this.collection.deleteMany({ createdAt: { $lt: before }, status: { $nin: OPEN } });
    return res.deletedCount;
  }

  async removeOf(endpointId: ObjectId): Promise<void> {
    await this.collection.deleteMany({ endpointId });
  }
}
