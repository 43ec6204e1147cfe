/**
 * A rule's two forms agree: for generated rules, records, callers and request bodies, the records
 * the MongoDB filter finds in a real server (the run's MongoDB-compatible server) are exactly those
 * the in-memory predicate accepts. 10,000 generated cases per run (fast-check), over one
 * collection of generated records; a failure shrinks to the smallest rule, caller and body that
 * tell the forms apart, and prints them.
 */
import fc from 'fast-check';
import { MongoClient, ObjectId, type Collection } from 'mongodb';
import { compileRule, defineResource, type RuleCaller } from '@restgate/shared/resource';

jest.setTimeout(600_000);

const resource = defineResource({
  name: 'notes',
  singular: 'note',
  fields: {
    title: { type: 'string', required: true, max: 200 },
    status: { type: 'enum', values: ['draft', 'published', 'archived'], required: true },
    pages: { type: 'integer', min: -10, max: 100 },
    score: { type: 'number' },
    due: { type: 'date' },
    featured: { type: 'boolean' },
  },
  searchable: ['title'],
  sortable: ['createdAt'],
  defaultSort: '-createdAt',
  access: { create: 'user', list: 'public', read: 'public', update: 'owner', delete: 'owner' },
});

const STRINGS = ['', 'a', 'A', 'b', 'é', 'zz', 'draft', 'published', 'archived'];
const NUMBERS = [-1, 0, 1, 2.5, 10];
const DATES = ['2026-01-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'];
const USERS = ['u1', 'u2', 'u3'];

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const record = fc.record({
  title: fc.constantFrom(...STRINGS),
  status: fc.constantFrom('draft', 'published', 'archived'),
  pages: maybe(fc.constantFrom(-1, 0, 1, 10)),
  score: maybe(fc.constantFrom(...NUMBERS)),
  due: maybe(fc.constantFrom(...DATES).map((d) => new Date(d))),
  featured: maybe(fc.boolean()),
  userId: fc.constantFrom(...USERS),
  createdAt: fc.constantFrom(...DATES).map((d) => new Date(d)),
});

const literalOf: Record<string, fc.Arbitrary<string>> = {
  title: fc.constantFrom(...STRINGS).map((s) => JSON.stringify(s)),
  status: fc.constantFrom('"draft"', '"published"', '"archived"'),
  pages: fc.constantFrom('-1', '0', '1', '10', '5'),
  score: fc.constantFrom(...NUMBERS.map(String)),
  due: fc.constantFrom(...DATES.map((d) => JSON.stringify(d))),
  createdAt: fc.constantFrom(...DATES.map((d) => JSON.stringify(d))),
  featured: fc.constantFrom('true', 'false'),
  'user.id': fc.constantFrom(...USERS.map((u) => JSON.stringify(u))),
};
const ORDERED = ['title', 'status', 'pages', 'score', 'due', 'createdAt', 'user.id'];
const SIDES_ONE = ['title', 'status', 'pages', 'score', 'due', 'featured'];

/** One comparison, of a type the compiler accepts. */
const comparison: fc.Arbitrary<string> = fc.oneof(
  fc
    .constantFrom(...ORDERED)
    .chain((f) => fc.tuple(fc.constantFrom('=', '!=', '<', '<=', '>', '>='), literalOf[f]!).map(([op, v]) => `${f} ${op} ${v}`)),
  fc.constantFrom(...ORDERED).chain((f) => literalOf[f]!.map((v) => `${v} < ${f}`)),
  fc.constantFrom('featured').chain((f) => fc.tuple(fc.constantFrom('=', '!='), literalOf[f]!).map(([op, v]) => `${f} ${op} ${v}`)),
  fc.tuple(fc.constantFrom(...SIDES_ONE, 'user.id'), fc.constantFrom('=', '!=')).map(([f, op]) => `${f} ${op} null`),
  fc.constantFrom(...ORDERED).chain((f) => fc.array(literalOf[f]!, { maxLength: 3 }).map((vs) => `${f} in [${vs.join(', ')}]`)),
  fc.constantFrom(
    'user.id = @auth.id',
    'user.id != @auth.id',
    'title = @auth.role',
    '@auth.role = "admin"',
    '@auth.id != null',
    '"mfa" in @auth.amr',
  ),
  fc.constantFrom(
    'status = @request.body.status',
    'pages < @request.body.pages',
    '@request.body.featured = true',
    'title != @request.body.title',
  ),
);

const rule: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    // At most 16 comparisons and 5 levels: within what the compiler accepts (32 and 8).
    { depthSize: 'small', maxDepth: 4, withCrossShrink: true },
    comparison,
    fc.tuple(tie('node'), fc.constantFrom('&&', '||'), tie('node')).map(([a, op, b]) => `(${a}) ${op} (${b})`),
    tie('node').map((a) => `!(${a})`),
  ),
})).node;

const caller: fc.Arbitrary<RuleCaller> = fc.record({
  id: fc.constantFrom<string | null>(null, ...USERS),
  role: fc.constantFrom<string | null>(null, 'user', 'admin'),
  amr: fc.subarray(['pwd', 'mfa', 'otp']),
});

const body = fc.record({
  title: fc.constantFrom(...STRINGS),
  status: fc.constantFrom('draft', 'published'),
  pages: maybe(fc.constantFrom(0, 1, 10)),
  featured: maybe(fc.boolean()),
});

let client: MongoClient;
let notes: Collection;
let stored: Array<Record<string, unknown>>;

beforeAll(async () => {
  client = new MongoClient(process.env.MONGODB_URL!);
  await client.connect();
  notes = client.db(`rule_forms_${process.pid}`).collection('notes');
  const generated = fc.sample(record, { numRuns: 60, seed: 20261129 });
  stored = generated.map((r) => ({ _id: new ObjectId(), ...Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) }));
  await notes.insertMany(stored);
});

afterAll(async () => {
  await notes?.db.dropDatabase().catch(() => undefined);
  await client?.close();
});

test('the MongoDB filter and the predicate select the same records (10,000 generated cases)', async () => {
  let compiled = 0;
  await fc.assert(
    fc.asyncProperty(rule, caller, body, async (text, who, sent) => {
      const compiledRule = compileRule(resource, 'update', text);
      compiled += 1;
      const filter = compiledRule.filter(who, sent);
      const found = (await notes.find(filter, { projection: { _id: 1 } }).toArray()).map((d) => String(d._id)).sort();
      const accepted = stored
        .filter((r) => compiledRule.test(r, who, sent))
        .map((r) => String(r._id))
        .sort();
      expect({ rule: text, filter, found }).toEqual({ rule: text, filter, found: accepted });
    }),
    { numRuns: 10_000 },
  );
  expect(compiled).toBeGreaterThanOrEqual(10_000);
});
