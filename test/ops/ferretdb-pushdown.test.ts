/**
 * The stack's FerretDB (patched: filters, sorts, limits and counts done by PostgreSQL, see
 * scripts/lib/ferretdb-patches/) against FerretDB's own build, each on a PostgreSQL of its
 * own holding the same documents: every query shape the services send must give the same answer
 * from both. The listings go through the real listing code (a generated resource's repository:
 * its filters, sorts, pages, `after` cursors and counts); the identity lookups, the outbox's and
 * the clean-ups' conditions and the conditional writes are sent as the repositories send them.
 * Then `explain()` on the patched server: `_id`, e-mail and session lookups are index scans.
 *
 * The data keeps the contract of docs/operations.md (one type per sorted or ranged field), and is
 * made to press on its edges: ties broken by `_id`, optional fields missing, mixed-case and
 * non-ASCII strings (the C collation orders them as MongoDB does), arrays in equality filters.
 */
import { MongoClient, ObjectId, type Db, type Document } from 'mongodb';
import type { ListingQuery, ParsedFilter } from '@restgate/shared/data';
import { ChangeOutbox, createResourceRepository, defineResource } from '@restgate/shared/resource';
import { MongoSessionRepository } from '../../services/identity/src/accounts/session.repository';
import { MongoUserRepository } from '../../services/identity/src/accounts/user.repository';
import { backing, tempDir, type BackingServer } from './support/processes';

jest.setTimeout(120_000);

const work = tempDir('ferretdb-pushdown');
const quiet = () => undefined;
const DB = 'pushdown';
const COUNT = 600;
const BASE = Date.UTC(2026, 0, 1);
const NOW = new Date(BASE + 200 * 60_000);

const itemResource = defineResource({
  name: 'items',
  singular: 'item',
  fields: {
    title: { type: 'string', required: true, max: 200 },
    status: { type: 'enum', values: ['draft', 'published', 'archived'], required: true, index: true },
    pages: { type: 'integer', min: 0, max: 10_000, index: true },
    score: { type: 'number' },
    due: { type: 'date' },
    contact: { type: 'email' },
    featured: { type: 'boolean' },
  },
  searchable: ['title'],
  sortable: ['createdAt', 'updatedAt', 'title', 'pages', 'due'],
  defaultSort: '-createdAt',
  access: { create: 'user', list: 'public', read: 'public', update: 'owner', delete: 'owner' },
});

type Side = { name: 'patched' | 'stock'; server: BackingServer; client: MongoClient; db: Db };
const sides: Side[] = [];

const TITLES = ['alpha', 'Alpha', 'beta', 'Zeta', 'éclair', 'Émile', 'zebra', '10 things', '9 lives', 'a b'];
/** A spread of `_id`s whose order is not the insertion order. */
const idOf = (i: number) => new ObjectId(((i * 7919) % 100_003).toString(16).padStart(24, '0'));

function item(i: number): Document {
  const createdAt = new Date(BASE + (i % 240) * 60_000); // ties: 240 distinct instants
  return {
    _id: idOf(i),
    title: `${TITLES[i % TITLES.length]} ${i % 37}`,
    status: ['draft', 'published', 'archived'][i % 3],
    ...(i % 3 === 0 ? {} : { pages: (i * 13) % 50 }),
    ...(i % 2 === 0 ? { score: (i % 11) / 4 } : {}),
    ...(i % 4 === 0 ? { due: new Date(BASE + (i % 90) * 86_400_000) } : {}),
    ...(i % 5 === 0 ? { contact: `Person${i % 7}@example.org` } : {}),
    ...(i % 6 === 0 ? {} : { featured: i % 4 === 1 }),
    userId: `u${i % 17}`,
    createdAt,
    updatedAt: new Date(createdAt.getTime() + (i % 5) * 1000),
    ...(i % 13 === 0 ? {} : { version: 1 + (i % 3) }),
  };
}

const user = (i: number): Document => ({
  _id: idOf(10_000 + i),
  email: `user${i}@example.org`,
  name: `User ${i % 50}`,
  role: i % 25 === 0 ? 'admin' : 'user',
  createdAt: new Date(BASE + i * 1000),
  ...(i % 3 === 0 ? { emailVerifiedAt: new Date(BASE) } : {}),
});

const session = (i: number): Document => ({
  _id: idOf(20_000 + i),
  userId: idOf(10_000 + (i % 40)),
  createdAt: new Date(BASE + i * 5000),
  expiresAt: new Date(NOW.getTime() + ((i % 9) - 4) * 3_600_000),
  credentialsEpoch: i % 4,
});

const outboxRow = (i: number): Document => ({
  _id: idOf(30_000 + i),
  mail: { status: ['pending', 'sent', 'failed'][i % 3], nextAttemptAt: new Date(NOW.getTime() + ((i % 7) - 3) * 60_000), attempts: i % 4 },
  expiresAt: new Date(NOW.getTime() + ((i % 5) - 1) * 3_600_000),
  tags: i % 2 ? ['a', 'b'] : ['c'],
});

const linkToken = (i: number): Document => ({
  _id: idOf(40_000 + i),
  tokenHash: `h${i}`,
  userId: i % 4 === 0 ? null : idOf(10_000 + i),
  expiresAt: new Date(NOW.getTime() + ((i % 3) - 1) * 3_600_000),
});

beforeAll(async () => {
  for (const name of ['patched', 'stock'] as const) {
    const server = await backing.ensureMongo({ dataDir: `${work.dir}/${name}`, env: {}, ferret: name, log: quiet });
    const client = new MongoClient(server.url);
    await client.connect();
    sides.push({ name, server, client, db: client.db(DB) });
  }
  for (const { db } of sides) {
    await createResourceRepository(db, itemResource, { cursorSecret: 'differential' }).ensureIndexes();
    await new MongoUserRepository(db, { cursorSecret: 'differential', filters: [], events: { outbox: new ChangeOutbox(db) } }).ensureIndexes();
    await new MongoSessionRepository(db).ensureIndexes();
    await db.collection('items').insertMany(Array.from({ length: COUNT }, (_, i) => item(i)));
    await db.collection('users').insertMany(Array.from({ length: 400 }, (_, i) => user(i)));
    await db.collection('sessions').insertMany(Array.from({ length: 400 }, (_, i) => session(i)));
    await db.collection('outbox').insertMany(Array.from({ length: 120 }, (_, i) => outboxRow(i)));
    await db.collection('link_tokens').insertMany(Array.from({ length: 60 }, (_, i) => linkToken(i)));
  }
}, 900_000);

afterAll(async () => {
  for (const { client, server } of sides) {
    await client.close().catch(() => undefined);
    await server.stop().catch(() => undefined);
  }
  work.cleanup();
}, 60_000);

/** Runs `query` on both servers and expects the same answer; returns it. */
async function same<T>(what: string, query: (db: Db) => Promise<T>): Promise<T> {
  const [patched, stock] = await Promise.all(sides.map((side) => query(side.db)));
  // A named failure: which shape differs, and how.
  expect({ what, answer: patched }).toEqual({ what, answer: stock });
  return patched!;
}

const repositoryOf = (db: Db) =>
  createResourceRepository<{ id: string; version: number }>(db, itemResource, { cursorSecret: 'differential' });

const SORTS: Array<ListingQuery['sort']> = [
  [['createdAt', -1]],
  [['createdAt', 1]],
  [['updatedAt', -1]],
  [['title', 1]],
  [['title', -1]],
  [['pages', -1]],
  [['pages', 1]],
  [['due', 1]],
  [
    ['status', 1],
    ['title', -1],
  ] as ListingQuery['sort'],
];

const at = (minutes: number) => new Date(BASE + minutes * 60_000);
const FILTERS: ParsedFilter[][] = [
  [],
  [{ field: 'status', op: 'eq', value: 'draft' }],
  [{ field: 'status', op: 'ne', value: 'archived' }],
  [{ field: 'status', op: 'in', value: ['draft', 'archived'] }],
  [{ field: 'pages', op: 'gte', value: 20 }],
  [
    { field: 'pages', op: 'gt', value: 5 },
    { field: 'pages', op: 'lte', value: 30 },
  ],
  [{ field: 'pages', op: 'eq', value: 13 }],
  [{ field: 'pages', op: 'ne', value: 13 }],
  [{ field: 'pages', op: 'in', value: [0, 13, 26] }],
  [{ field: 'pages', op: 'exists', value: false }],
  [{ field: 'score', op: 'gt', value: 1.5 }],
  [
    { field: 'createdAt', op: 'gte', value: at(60) },
    { field: 'createdAt', op: 'lt', value: at(120) },
  ],
  [{ field: 'due', op: 'lt', value: new Date(BASE + 30 * 86_400_000) }],
  [{ field: 'user', op: 'eq', value: 'u3' }],
  [{ field: 'user', op: 'in', value: ['u1', 'u2'] }],
  [{ field: 'featured', op: 'eq', value: true }],
  [{ field: 'contact', op: 'prefix', value: 'person3' }],
  [{ field: 'title', op: 'eq', value: 'Alpha 1' }],
];

describe('listings: the same rows, totals and cursors from both', () => {
  test.each(SORTS.map((sort) => [sort.map(([f, d]) => (d === 1 ? f : `-${f}`)).join(','), sort] as const))(
    'sorted by %s: every filter, pages 1 and 3, and four pages of after-cursors',
    async (_label, sort) => {
      for (const filters of FILTERS) {
        const base = { sort, filters, page: 1, limit: 9 } satisfies ListingQuery;
        const label = JSON.stringify({ sort, filters });
        await same(`page 1 ${label}`, (db) => repositoryOf(db).list(base));
        await same(`page 3 ${label}`, (db) => repositoryOf(db).list({ ...base, page: 3 }));
        // The walk: each side follows its own cursors, which must be the same.
        let after: string | undefined;
        for (let page = 0; page < 4; page++) {
          const query: ListingQuery = { ...base, after, count: false };
          const result = await same(`after ${page} ${label}`, (db) => repositoryOf(db).list(query));
          if (!result.next) break;
          after = result.next;
        }
      }
    },
  );

  test('a search (q) and a full walk by cursors reach every matching row once', async () => {
    await same('q', (db) => repositoryOf(db).list({ q: 'ALPHA', sort: [['title', 1]], page: 1, limit: 50 }));
    for (const sort of [SORTS[0]!, SORTS[6]!]) {
      const seen = await same(`full walk ${JSON.stringify(sort)}`, async (db) => {
        const ids: string[] = [];
        let after: string | undefined;
        do {
          const { rows, next } = await repositoryOf(db).list({ sort, page: 1, limit: 100, after, count: false, fields: ['title'] });
          ids.push(...rows.map((row) => row.id));
          after = next;
        } while (after);
        return ids;
      });
      expect(new Set(seen).size).toBe(COUNT);
    }
  });
});

describe('lookups, counts and clean-ups as the repositories send them', () => {
  test('users: by _id, by e-mail, by ids, admins counted, verified or not', async () => {
    const users = (db: Db) => db.collection('users');
    expect(await same('user by _id', (db) => users(db).findOne({ _id: idOf(10_007) }))).toMatchObject({ email: 'user7@example.org' });
    await same('user by e-mail', (db) => users(db).findOne({ email: 'user123@example.org' }));
    await same('user by a missing e-mail', (db) => users(db).findOne({ email: 'nobody@example.org' }));
    await same('users by ids', (db) =>
      users(db)
        .find({ _id: { $in: [idOf(10_001), idOf(10_002), idOf(99)] } })
        .sort({ _id: 1 })
        .toArray(),
    );
    await same('no ids', (db) =>
      users(db)
        .find({ _id: { $in: [] } })
        .toArray(),
    );
    await same('admins', (db) => users(db).countDocuments({ role: 'admin' }));
    await same('verified', (db) => users(db).countDocuments({ $or: [{ emailVerifiedAt: { $ne: null } }] }));
    await same('not verified', (db) => users(db).countDocuments({ $nor: [{ emailVerifiedAt: { $ne: null } }] }));
    await same('count command', (db) => db.command({ count: 'users', query: { role: 'user' } }).then((r) => r.n as number));
    await same('estimated count', (db) => users(db).estimatedDocumentCount());
  });

  test("sessions: one that has not expired, a user's newest with their total, the expired ones removed", async () => {
    const sessions = (db: Db) => db.collection('sessions');
    await same('live session', (db) => sessions(db).findOne({ _id: idOf(20_005), expiresAt: { $gt: NOW } }));
    await same('expired session', (db) => sessions(db).findOne({ _id: idOf(20_000), expiresAt: { $gt: NOW } }));
    const mine = { userId: idOf(10_003), expiresAt: { $gt: NOW }, credentialsEpoch: { $gte: 2 } };
    await same("a user's sessions", (db) => sessions(db).find(mine).sort({ createdAt: -1, _id: -1 }).limit(5).toArray());
    await same("a user's total", (db) => sessions(db).countDocuments(mine));
    await same('expired removed', async (db) => {
      const { deletedCount } = await sessions(db).deleteMany({ expiresAt: { $lte: NOW } });
      return [
        deletedCount,
        await sessions(db)
          .find({}, { projection: { _id: 1 } })
          .sort({ _id: 1 })
          .toArray(),
      ];
    });
  });

  test('the outbox and link tokens: due mail by nested fields, tokens not used up', async () => {
    const due = { 'mail.status': 'pending', 'mail.nextAttemptAt': { $lte: NOW }, expiresAt: { $gt: NOW } };
    await same('due mail', (db) => db.collection('outbox').find(due).sort({ 'mail.nextAttemptAt': 1, _id: 1 }).limit(10).toArray());
    await same('pending', (db) => db.collection('outbox').countDocuments({ 'mail.status': 'pending', expiresAt: { $gt: NOW } }));
    await same('array equality', (db) => db.collection('outbox').countDocuments({ tags: 'a' }));
    await same('no outbox row', (db) =>
      db
        .collection('outbox')
        .find({ _id: { $exists: false } })
        .toArray(),
    );
    const tokens = (db: Db) => db.collection('link_tokens');
    for (const i of [1, 4, 5, 7]) {
      await same(`token ${i}`, (db) => tokens(db).findOne({ tokenHash: `h${i}`, userId: { $ne: null }, expiresAt: { $gt: NOW } }));
    }
  });

  test('conditional writes: at a version, before versions, gone; the documents agree afterwards', async () => {
    const repository = repositoryOf;
    const version = (i: number) => (i % 13 === 0 ? 0 : 1 + (i % 3));
    await same('update at its version', (db) => repository(db).update(idOf(10).toHexString(), { title: 'changed' } as never, version(10)));
    await same('update at a stale version', (db) => repository(db).update(idOf(11).toHexString(), { title: 'stale' } as never, 99));
    await same('update before versions', (db) => repository(db).update(idOf(26).toHexString(), { title: 'old' } as never, 0));
    await same('remove at its version', (db) => repository(db).remove(idOf(12).toHexString(), version(12)));
    await same('remove again', (db) => repository(db).remove(idOf(12).toHexString(), version(12)));
    await same('the items afterwards', (db) =>
      db
        .collection('items')
        .find({ _id: { $in: [idOf(10), idOf(11), idOf(12), idOf(26)] } })
        .sort({ _id: 1 })
        .toArray(),
    );
  });
});

describe('explain: lookups name an index', () => {
  /** The index names in a FerretDB explain's PostgreSQL plan. */
  function indexScans(plan: unknown): string[] {
    const found: string[] = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'Index Name' && typeof value === 'string') found.push(value);
          else walk(value);
        }
      }
    };
    walk(plan);
    return found;
  }
  const patched = () => sides.find((side) => side.name === 'patched')!.db;

  test.each([
    ['a user by _id', 'users', { _id: idOf(10_007) }, /__id_/],
    ['a user by e-mail', 'users', { email: 'user123@example.org' }, /email/],
    ['a session by _id, not expired', 'sessions', { _id: idOf(20_005), expiresAt: { $gt: NOW } }, /__id_/],
    ["a user's sessions", 'sessions', { userId: idOf(10_003), expiresAt: { $gt: NOW } }, /_userId_/],
  ])('%s', async (_what, collection, filter, index) => {
    const explained = await patched().collection(collection).find(filter).explain();
    const names = indexScans(explained.queryPlanner);
    expect(names.length).toBeGreaterThan(0);
    expect(names.join(' ')).toMatch(index);
  });
});
