import {
  createListingCursors,
  findPage,
  isDuplicateKeyError,
  parseObjectId,
  type FilterSpec,
  type ListingCursors,
  type ListingPage,
} from '@restgate/shared/data';
import { recordedWrites, type ChangeOutbox, type OutboxEntry, type RecordedWrites } from '@restgate/shared/resource';
import { ObjectId, type Collection, type Db, type Filter } from 'mongodb';
import type { NewUser, ProviderLinks, UserChanges, UserPage, UserRepository, UserSummary } from './accounts-deps';
import type { Role, UserRecord } from './user';

interface UserDocument {
  _id: ObjectId;
  email: string;
  name: string;
  picture: string;
  role: Role;
  passwordHash: string | null;
  /** Whether the address is proven; absent on documents written before verification existed. */
  emailVerified?: boolean;
  providers?: ProviderLinks;
  /** When someone proved they own the e-mail (absent: never). */
  emailVerifiedAt?: Date;
  /** When a change or reset last set the password (absent: never); set with `passwordHash`. */
  credentialsChangedAt?: Date;
  /** The password is the address owner's (see UserRecord); absent on documents from before it was recorded: not proven. */
  passwordProven?: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** Grows with every change; absent on documents written before versions (version 0). */
  version?: number;
}

const SEARCHED_FIELDS = ['name', 'email'];

/**
 * Proven when recorded so, or when it carries a proof time, or (documents from before verification
 * was recorded) when a provider-verified e-mail linked it.
 */
function isVerified(doc: Pick<UserDocument, 'emailVerified' | 'emailVerifiedAt' | 'providers'>): boolean {
  return doc.emailVerified === true || doc.emailVerifiedAt !== undefined || Object.keys(doc.providers ?? {}).length > 0;
}

/** The stored forms of a verified user, as `isVerified` reads them (a link to any of `providerNames`). */
function verifiedForms(providerNames: readonly string[]): Filter<UserDocument>[] {
  return [
    { emailVerified: true },
    { emailVerifiedAt: { $exists: true } },
    ...providerNames.map((provider) => ({ [`providers.${provider}`]: { $exists: true } }) as Filter<UserDocument>),
  ];
}

/** The listing's filters, with the stored form of those that are not one field. */
function storedFilters(filters: readonly FilterSpec[], providerNames: readonly string[]): FilterSpec[] {
  const VERIFIED = verifiedForms(providerNames);
  return filters.map((filter) =>
    filter.name === 'emailVerified'
      ? { ...filter, toMongo: (_op, value) => (value === true ? { $or: VERIFIED } : { $nor: VERIFIED }) }
      : filter,
  );
}

/** What a write stores for `emailVerified`: the flag, and the time it was proven. */
function verification(emailVerified: boolean | undefined, now: Date): Partial<UserDocument> {
  if (emailVerified === undefined) return {};
  return emailVerified ? { emailVerified: true, emailVerifiedAt: now } : { emailVerified: false };
}

function toSummary(doc: Omit<UserDocument, 'passwordHash'>): UserSummary {
  return {
    id: doc._id.toHexString(),
    email: doc.email,
    name: doc.name,
    picture: doc.picture,
    role: doc.role,
    emailVerified: isVerified(doc),
    credentialsEpoch: doc.credentialsChangedAt?.getTime() ?? 0,
    createdAt: doc.createdAt,
    version: doc.version ?? 0,
  };
}

/**
 * A user as change events carry it: what an admin sees of them (GET /users/:id) and the times,
 * never the password hash or anything else known of the credentials.
 */
function eventRecord(doc: UserDocument) {
  const { credentialsEpoch: _epoch, createdAt, ...summary } = toSummary(doc);
  return { ...summary, createdAt, updatedAt: doc.updatedAt };
}

function toRecord(doc: UserDocument): UserRecord {
  const passwordHash = doc.passwordHash ?? null;
  return { ...toSummary(doc), passwordHash, passwordProven: passwordHash === null || doc.passwordProven === true };
}

/** Users in MongoDB. Ids go in and out as hex strings; a malformed id finds nothing. */
export class MongoUserRepository implements UserRepository {
  private readonly users: Collection<UserDocument>;
  /** The collection, where the change relay sees whether a recorded change happened. */
  readonly collection: Collection<UserDocument>;
  /** Every write that makes a new version, with its `users.*` change event. */
  private readonly writes: RecordedWrites;
  private readonly cursors: ListingCursors;
  private readonly filters: FilterSpec[];

  private readonly providerNames: readonly string[];

  /**
   * `filters` are the listing's (GET /users); its cursors are signed with a key derived from
   * `cursorSecret`. `providerNames`: the providers a user may be linked to (the social feature's
   * list; opaque names to the core), one unique index each.
   */
  constructor(
    db: Db,
    options: {
      cursorSecret: string;
      filters: readonly FilterSpec[];
      providerNames?: readonly string[];
      /** The change outbox every create, update and delete records its event in; `onChange` runs after each. */
      events: { outbox: ChangeOutbox; onChange?: (entry: OutboxEntry) => void };
    },
  ) {
    this.users = db.collection<UserDocument>('users');
    this.collection = this.users;
    this.writes = recordedWrites({
      resource: 'users',
      collection: this.users as unknown as Parameters<typeof recordedWrites>[0]['collection'],
      outbox: options.events.outbox,
      toRecord: (doc) => eventRecord(doc as unknown as UserDocument),
      systemFields: ['updatedAt'],
      onChange: options.events.onChange,
    });
    this.cursors = createListingCursors(options.cursorSecret, 'users');
    this.providerNames = options.providerNames ?? [];
    this.filters = storedFilters(options.filters, this.providerNames);
  }

  async ensureIndexes(): Promise<void> {
    // The unique index is what makes e-mails unique: inserts rely on its duplicate-key error.
    await this.users.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
    await this.users.createIndex({ createdAt: -1, _id: -1 }, { name: 'created_at' });
    // One unique index per provider, so an identity links to one user at most. Sparse, because
    // most users have no link to a given provider (FerretDB has no partial indexes).
    for (const provider of this.providerNames) {
      await this.users.createIndex({ [`providers.${provider}`]: 1 }, { unique: true, sparse: true, name: `provider_${provider}_unique` });
    }
  }

  /** Inserts a user; a taken e-mail surfaces as the driver's duplicate-key error (11000). */
  async insert(user: NewUser): Promise<UserRecord> {
    const now = new Date();
    const { emailVerified, ...fields } = user;
    const doc: UserDocument = {
      _id: new ObjectId(),
      ...fields,
      ...verification(emailVerified ?? false, now),
      // A sign-up's password is whoever signed up's; a social account has none to prove.
      passwordProven: fields.passwordHash === null,
      createdAt: now,
      updatedAt: now,
      version: 1,
    };
    await this.writes.insert(doc as never);
    return toRecord(doc);
  }

  async findById(id: string): Promise<UserRecord | null> {
    const _id = parseObjectId(id);
    const doc = _id && (await this.users.findOne({ _id }));
    return doc ? toRecord(doc) : null;
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    const doc = await this.users.findOne({ email });
    return doc ? toRecord(doc) : null;
  }

  /** The user linked to this provider identity, or null. */
  async findByProvider(provider: string, providerId: string): Promise<UserRecord | null> {
    const doc = await this.users.findOne({ [`providers.${provider}`]: providerId } as Filter<UserDocument>);
    return doc ? toRecord(doc) : null;
  }

  /**
   * Links a provider identity to a user that has no identity of that provider yet. Null when the
   * user is gone, is already linked to another identity of that provider, or the identity was just
   * linked to someone else (a lost race: the caller looks again).
   */
  async linkProvider(userId: string, provider: string, providerId: string): Promise<UserRecord | null> {
    const _id = parseObjectId(userId);
    if (!_id) return null;
    const field = `providers.${provider}`;
    try {
      const doc = await this.writes.update({ _id, [field]: { $exists: false } }, { [field]: providerId, updatedAt: new Date() }, undefined);
      return doc ? toRecord(doc as unknown as UserDocument) : null;
    } catch (err) {
      if (isUniqueViolation(err)) return null;
      throw err;
    }
  }

  /**
   * Sets the given fields (a password hash and its epoch together) and the next version, in one
   * write; null when there is no such user (or, with `version`, not at it).
   */
  async update(id: string, changes: UserChanges, version?: number): Promise<UserRecord | null> {
    const _id = parseObjectId(id);
    if (!_id) return null;
    const now = new Date();
    const { emailVerified, credentialsEpoch, ...fields } = changes;
    const epoch = credentialsEpoch === undefined ? {} : { credentialsChangedAt: new Date(credentialsEpoch) };
    const set = { ...fields, ...epoch, ...verification(emailVerified, now), updatedAt: now };
    const doc = await this.writes.update({ _id }, set, version);
    return doc ? toRecord(doc as unknown as UserDocument) : null;
  }

  /**
   * Conditional on the hash read at sign-in: one atomic update on MongoDB. FerretDB runs it as
   * read-modify-write, so a password change landing in that gap could be undone there; the window
   * is one update's, and only for a user whose hash is being upgraded (once per user).
   */
  async rehashPassword(id: string, current: string, next: string): Promise<boolean> {
    const _id = parseObjectId(id);
    if (!_id) return false;
    const { modifiedCount } = await this.users.updateOne({ _id, passwordHash: current }, { $set: { passwordHash: next } });
    return modifiedCount === 1;
  }

  async delete(id: string, version?: number): Promise<boolean> {
    const _id = parseObjectId(id);
    if (!_id) return false;
    return this.writes.remove({ _id }, version);
  }

  /** One page (`q` over name and e-mail, the filters), the total unless not counted, and the next cursor; no password hashes. */
  async list(page: UserPage): Promise<ListingPage & { rows: UserSummary[] }> {
    // Whole documents (but the hash): the views are made from them, and `fields` narrows the views.
    const { docs, count, next } = await findPage(
      {
        collection: this.users,
        cursors: this.cursors,
        searched: SEARCHED_FIELDS,
        filters: this.filters,
        projection: { passwordHash: 0 },
        alwaysPresent: ['createdAt'],
      },
      { ...page, fields: undefined },
    );
    return { rows: docs.map(toSummary), count, next };
  }
}

/** MongoDB reports a unique-index clash on update as 11000; FerretDB 1.x as an internal error naming it. */
function isUniqueViolation(err: unknown): boolean {
  return isDuplicateKeyError(err) || (err instanceof Error && err.message.includes('UNIQUE constraint failed'));
}
