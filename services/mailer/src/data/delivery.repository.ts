import { randomUUID } from 'node:crypto';
import { writeUnique } from '@restgate/shared/data';
import type { Db } from 'mongodb';
import type { ClaimResult, DeliveryLog, SentMail } from '../domain/mail.model';

export const DELIVERIES_COLLECTION = 'deliveries';

/** One message id's delivery. `_id` is the message id, so the log can't hold two rows for one message. */
export interface DeliveryDoc {
  _id: string;
  type: string;
  requestId: string;
  /** `sending`: claimed (until `leaseUntil`); `failed`: the last send failed, free to claim; `sent`: done. */
  status: 'sending' | 'sent' | 'failed';
  claimToken?: string;
  leaseUntil?: Date;
  /** Sends started for this message id, across every copy and retry. */
  sends: number;
  lastError?: string;
  response?: string;
  location?: string;
  createdAt: Date;
  updatedAt: Date;
  sentAt?: Date;
}

export const DELIVERY_CLAIMS_COLLECTION = 'delivery_claims';

/** A take-over of a message seen before: `_id` `<message id>:<sends so far>` lets one mailer win it. */
interface DeliveryClaimDoc {
  _id: string;
  token: string;
  createdAt: Date;
}

export function createDeliveryRepository(db: Db): DeliveryLog & { find(id: string): Promise<DeliveryDoc | null> } {
  const collection = db.collection<DeliveryDoc>(DELIVERIES_COLLECTION);
  const claims = db.collection<DeliveryClaimDoc>(DELIVERY_CLAIMS_COLLECTION);

  return {
    async claim({ id, type, requestId, leaseMs }): Promise<ClaimResult> {
      const now = new Date();
      const token = randomUUID();
      const leaseUntil = new Date(now.getTime() + leaseMs);
      const first: DeliveryDoc = {
        _id: id,
        type,
        requestId,
        status: 'sending',
        claimToken: token,
        leaseUntil,
        sends: 1,
        createdAt: now,
        updatedAt: now,
      };
      if (await writeUnique(() => collection.insertOne(first))) return { outcome: 'claimed', token };
      // Seen before: take it over only if the last send failed or its sender's lease ran out, by
      // inserting the claim `<id>:<sends>`: a conditional update would be read-modify-write on
      // FerretDB, and two mailers could both take the message over and both send it.
      const current = await collection.findOne({ _id: id });
      if (current?.status === 'sent') return { outcome: 'sent' };
      const free = current && (current.status === 'failed' || (current.leaseUntil !== undefined && current.leaseUntil <= now));
      if (!free) return { outcome: 'busy' };
      if (!(await writeUnique(() => claims.insertOne({ _id: `${id}:${current.sends}`, token, createdAt: now }))))
        return { outcome: 'busy' };
      // Only the claim's winner writes here; the filter drops a claim made on a stale read.
      const taken = await collection.updateOne(
        { _id: id, sends: current.sends, status: current.status },
        { $set: { status: 'sending', claimToken: token, leaseUntil, requestId, updatedAt: now }, $inc: { sends: 1 } },
      );
      return taken.modifiedCount === 1 ? { outcome: 'claimed', token } : { outcome: 'busy' };
    },

    async markSent(id, sent: SentMail) {
      const now = new Date();
      await collection.updateOne(
        { _id: id },
        {
          $set: {
            status: 'sent',
            sentAt: now,
            updatedAt: now,
            ...(sent.response ? { response: sent.response } : {}),
            ...(sent.location ? { location: sent.location } : {}),
          },
          $unset: { claimToken: '', leaseUntil: '' },
        },
      );
    },

    async release(id, token, error) {
      await collection.updateOne(
        { _id: id, status: 'sending', claimToken: token },
        { $set: { status: 'failed', lastError: error.slice(0, 500), updatedAt: new Date() }, $unset: { claimToken: '', leaseUntil: '' } },
      );
    },

    find: (id) => collection.findOne({ _id: id }),
  };
}
