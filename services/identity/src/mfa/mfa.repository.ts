import { parseObjectId, writeUnique } from '@restgate/shared/data';
import { ObjectId, type Collection, type Db } from 'mongodb';
import type { MfaChallengeRecord, MfaFactorRecord, MfaRepository } from './mfa-ports';

/** A user's TOTP factor: `_id` is the user id; the secret only sealed, recovery codes only hashed. */
interface FactorDocument {
  _id: ObjectId;
  sealedSecret: string;
  enabled: boolean;
  lastStep: number;
  recoveryCodes: string[];
  createdAt: Date;
  enabledAt?: Date;
}

/** A sign-in waiting for its second factor: `_id` is the SHA-256 of the `mfaToken`. */
interface ChallengeDocument {
  _id: string;
  userId: ObjectId;
  credentialsEpoch: number;
  amr: string[];
  userAgent: string | null;
  expiresAt: Date;
}

/** Something used once: `t:<user>:<step>`, `r:<code hash>`, `c:<mfaToken hash>`. Its insert is the claim. */
interface UseDocument {
  _id: string;
  userId?: ObjectId;
  expiresAt: Date;
}

/** How long a used time step is remembered: past the drift window it can't match any more. */
const STEP_MEMORY_MS = 5 * 60_000;
/** Recovery codes stay used for as long as the user could still hold a copy of the list. */
const RECOVERY_MEMORY_MS = 10 * 365 * 86_400_000;

/**
 * Factors, pending sign-ins and used codes in MongoDB (`mfa_factors`, `mfa_challenges`,
 * `mfa_uses`). Single use is a unique-key insert, not a conditional update: on FerretDB v1
 * concurrent conditional updates of one document can all report a change (see session.repository.ts).
 */
export class MongoMfaRepository implements MfaRepository {
  private readonly factors: Collection<FactorDocument>;
  private readonly challenges: Collection<ChallengeDocument>;
  private readonly uses: Collection<UseDocument>;

  constructor(db: Db) {
    this.factors = db.collection<FactorDocument>('mfa_factors');
    this.challenges = db.collection<ChallengeDocument>('mfa_challenges');
    this.uses = db.collection<UseDocument>('mfa_uses');
  }

  async ensureIndexes(): Promise<void> {
    await this.challenges.createIndex({ userId: 1 }, { name: 'user_id' });
    await this.uses.createIndex({ userId: 1 }, { name: 'user_id' });
  }

  async find(userId: string): Promise<MfaFactorRecord | null> {
    const _id = parseObjectId(userId);
    const doc = _id && (await this.factors.findOne({ _id }));
    if (!doc) return null;
    return {
      userId: doc._id.toHexString(),
      sealedSecret: doc.sealedSecret,
      enabled: doc.enabled,
      lastStep: doc.lastStep,
      recoveryCodes: doc.recoveryCodes,
    };
  }

  async savePending(userId: string, sealedSecret: string): Promise<boolean> {
    const _id = parseObjectId(userId);
    if (!_id) return false;
    // An enabled factor does not match the filter: the upsert's insert then hits its _id.
    return writeUnique(() =>
      this.factors.updateOne(
        { _id, enabled: false },
        { $set: { sealedSecret, lastStep: 0, recoveryCodes: [], createdAt: new Date() } },
        { upsert: true },
      ),
    );
  }

  async enable(userId: string, sealedSecret: string, recoveryCodes: string[]): Promise<boolean> {
    const _id = parseObjectId(userId);
    if (!_id) return false;
    const { modifiedCount } = await this.factors.updateOne(
      { _id, enabled: false, sealedSecret },
      { $set: { enabled: true, recoveryCodes, enabledAt: new Date() } },
    );
    return modifiedCount === 1;
  }

  async replaceRecoveryCodes(userId: string, recoveryCodes: string[]): Promise<void> {
    const _id = parseObjectId(userId);
    if (_id) await this.factors.updateOne({ _id, enabled: true }, { $set: { recoveryCodes } });
  }

  async useStep(userId: string, step: number): Promise<boolean> {
    const _id = parseObjectId(userId);
    if (!_id) return false;
    const now = Date.now();
    if (!(await this.claim({ _id: `t:${userId}:${step}`, userId: _id, expiresAt: new Date(now + STEP_MEMORY_MS) }))) return false;
    // Earlier steps end with this one (RFC 6238 §5.2); the unique insert above is what is atomic.
    await this.factors.updateOne({ _id }, { $max: { lastStep: step } });
    await this.uses.deleteMany({ userId: _id, _id: { $regex: /^t:/ }, expiresAt: { $lte: new Date(now) } });
    return true;
  }

  async useRecoveryCode(userId: string, codeHash: string): Promise<boolean> {
    const _id = parseObjectId(userId);
    if (!_id) return false;
    if (!(await this.claim({ _id: `r:${codeHash}`, userId: _id, expiresAt: new Date(Date.now() + RECOVERY_MEMORY_MS) }))) return false;
    await this.factors.updateOne({ _id }, { $pull: { recoveryCodes: codeHash } });
    return true;
  }

  async disable(userId: string): Promise<boolean> {
    const _id = parseObjectId(userId);
    if (!_id) return false;
    const { deletedCount } = await this.factors.deleteOne({ _id, enabled: true });
    if (deletedCount === 0) return false;
    await this.challenges.deleteMany({ userId: _id });
    return true;
  }

  async insertChallenge(tokenHash: string, challenge: MfaChallengeRecord): Promise<void> {
    const userId = parseObjectId(challenge.userId);
    if (!userId) throw new Error('mfa.insertChallenge: malformed user id');
    // No TTL indexes on FerretDB v1: a user's expired challenges go as they sign in again.
    await this.challenges.deleteMany({ userId, expiresAt: { $lte: new Date() } });
    await this.challenges.insertOne({ _id: tokenHash, ...challenge, userId });
  }

  async findChallenge(tokenHash: string): Promise<MfaChallengeRecord | null> {
    const doc = await this.challenges.findOne({ _id: tokenHash });
    if (!doc) return null;
    // A challenge written before epochs were kept (-1) matches no user's epoch: it ends.
    const credentialsEpoch = typeof doc.credentialsEpoch === 'number' ? doc.credentialsEpoch : -1;
    return { userId: doc.userId.toHexString(), credentialsEpoch, amr: doc.amr, userAgent: doc.userAgent, expiresAt: doc.expiresAt };
  }

  async deleteChallenge(tokenHash: string): Promise<void> {
    await this.challenges.deleteOne({ _id: tokenHash });
  }

  async endChallenges(userId: string): Promise<void> {
    const _id = parseObjectId(userId);
    if (_id) await this.challenges.deleteMany({ userId: _id });
  }

  async claimChallenge(tokenHash: string, expiresAt: Date): Promise<boolean> {
    if (!(await this.claim({ _id: `c:${tokenHash}`, expiresAt }))) return false;
    await this.challenges.deleteOne({ _id: tokenHash });
    return true;
  }

  private claim(use: UseDocument): Promise<boolean> {
    return writeUnique(() => this.uses.insertOne(use));
  }
}
