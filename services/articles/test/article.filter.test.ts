import { opsOf } from '@restgate/shared/testing';
import { filtersOf } from '@restgate/shared/resource';
import { articleResource } from '../src/resource';
import {
  ACCESS,
  aMarker,
  anArticleDoc,
  aUser,
  callerFor,
  FIELDS,
  givenArticles,
  MARKER_FIELD,
  type ArticleDoc,
  describeUnless,
} from './support/builders';
import { call, startArticles, type TestService } from './support/harness';

/**
 * The filters of the listing, derived from the definition: they hold for every resource generated
 * from this service, whatever its fields.
 */
const LISTER = callerFor(ACCESS.list);
const FILTERS = filtersOf(articleResource);

/** Two distinct stored values of a filterable field, the first the smaller (`marker` in text values, so `q` still finds them). */
function twoValues(name: string, marker: string): [unknown, unknown] | undefined {
  if (name === 'createdAt' || name === 'updatedAt') return [new Date('2026-01-02T03:04:05.000Z'), new Date('2026-02-03T04:05:06.000Z')];
  if (name === 'user') return [aUser().id, aUser().id].sort() as [string, string];
  const field = FIELDS[name]!;
  const min = field.min ?? 0;
  switch (field.type) {
    case 'integer':
      return [min + 1, min + 2];
    case 'number':
      return [min + 1.5, min + 2.5];
    case 'boolean':
      return [false, true];
    case 'date':
      return [new Date('2026-01-02T03:04:05.000Z'), new Date('2026-02-03T04:05:06.000Z')];
    case 'enum':
      return field.values!.length > 1 ? [field.values![0], field.values![1]] : undefined;
    case 'email':
      return [`a${marker}@example.com`, `b${marker}@example.com`];
    case 'url':
      return [`https://example.com/a${marker}`, `https://example.com/b${marker}`];
    default:
      return [`${marker} Alpha`, `${marker} Beta`];
  }
}

/** Equality's parameter: the bare name, or `name[eq]` for a field named like a listing parameter (`count`). */
const eqParam = (name: string) => (['q', 'page', 'limit', 'sort', 'fields', 'after', 'count'].includes(name) ? `${name}[eq]` : name);
const asParam = (value: unknown) => (value instanceof Date ? value.toISOString() : String(value));
const field = (name: string) => (name === 'user' ? 'userId' : name);

describeUnless('list')('GET /articles filters', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startArticles();
  });
  afterAll(async () => {
    await svc.stop();
  });

  const list = (query: Record<string, string>) => call(svc.app, 'get', '/articles', LISTER).query(query);
  const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id).sort();
  const idsOf = (docs: ArticleDoc[]) => docs.map((doc) => doc._id.toHexString()).sort();

  /** Three articles found by `q=marker`: the field at the smaller value, at the greater, and (if optional) unset. */
  async function given(name: string): Promise<{ marker: string; values: [unknown, unknown]; docs: ArticleDoc[]; unset?: ArticleDoc }> {
    const marker = aMarker();
    const values = twoValues(name, marker)!;
    const base = (value: unknown) => anArticleDoc({ [MARKER_FIELD]: `${marker} row`, [field(name)]: value });
    const docs = [base(values[0]), base(values[1])];
    if (name === MARKER_FIELD) docs.forEach((doc, i) => (doc[MARKER_FIELD] = values[i]));
    const optional = FILTERS.find((f) => f.name === name)?.optional;
    const unset = optional ? anArticleDoc({ [MARKER_FIELD]: `${marker} row` }) : undefined;
    if (unset) delete unset[name];
    await givenArticles(svc.articles, unset ? [...docs, unset] : docs);
    return { marker, values, docs, unset };
  }

  const filterable = FILTERS.filter((f) => twoValues(f.name, 'x') !== undefined).map((f) => f.name);

  test.each(filterable)('when %s=<value> is given, then exactly the rows equal to it', async (name) => {
    const { marker, values, docs } = await given(name);

    const res = await list({ q: marker, [eqParam(name)]: asParam(values[0]) });

    expect(res.status).toBe(200);
    expect(ids(res.body.rows)).toEqual(idsOf([docs[0]!]));
    expect(res.body.count).toBe(1);
  });

  test.each(filterable.filter((name) => opsOf(FILTERS.find((f) => f.name === name)!).includes('ne')))(
    'when %s[ne] is given, then exactly the rows that differ (or lack the field)',
    async (name) => {
      const { marker, values, docs, unset } = await given(name);

      const res = await list({ q: marker, [`${name}[ne]`]: asParam(values[0]) });

      expect(ids(res.body.rows)).toEqual(idsOf(unset ? [docs[1]!, unset] : [docs[1]!]));
    },
  );

  test.each(FILTERS.filter((f) => ['integer', 'number', 'date'].includes(f.type)).map((f) => f.name))(
    'when %s takes range operators, then gt, gte, lt and lte bound it exactly',
    async (name) => {
      const { marker, values, docs } = await given(name);
      const [low, high] = values.map(asParam) as [string, string];

      const answers = await Promise.all(
        [{ gt: low }, { gte: low }, { lt: high }, { lte: high }, { gt: low, lt: high }].map((ops) =>
          list({ q: marker, ...Object.fromEntries(Object.entries(ops).map(([op, v]) => [`${name}[${op}]`, v])) }),
        ),
      );

      expect(answers.map((res) => ids(res.body.rows))).toEqual([idsOf([docs[1]!]), idsOf(docs), idsOf([docs[0]!]), idsOf(docs), []]);
    },
  );

  test.each(FILTERS.filter((f) => f.type !== 'boolean' && twoValues(f.name, 'x')).map((f) => f.name))(
    'when %s[in] lists values, then exactly the rows holding one of them',
    async (name) => {
      const { marker, values, docs } = await given(name);

      const [one, both] = await Promise.all([
        list({ q: marker, [`${name}[in]`]: asParam(values[1]) }),
        list({ q: marker, [`${name}[in]`]: values.map(asParam).join(',') }),
      ]);

      expect(ids(one.body.rows)).toEqual(idsOf([docs[1]!]));
      expect(ids(both.body.rows)).toEqual(idsOf(docs));
    },
  );

  test.each(FILTERS.filter((f) => f.type === 'string').map((f) => f.name))(
    'when %s[prefix] is given, then rows starting with it, case-insensitively and literally',
    async (name) => {
      const { marker, values, docs } = await given(name);
      const text = String(values[1]);
      const start = text.slice(0, text.length - 2).toUpperCase();

      const [match, literal] = await Promise.all([
        list({ q: marker, [`${name}[prefix]`]: start }),
        list({ q: marker, [`${name}[prefix]`]: `.*${text.slice(1)}` }),
      ]);

      expect(ids(match.body.rows)).toEqual(idsOf([docs[1]!]));
      expect(literal.body.rows).toEqual([]);
    },
  );

  const optional = FILTERS.filter((f) => f.optional).map((f) => f.name);
  // A resource whose fields are all required has no `exists` filter.
  (optional.length ? test.each(optional) : test.skip.each(['(no optional field)']))(
    'when %s[exists] is given, then set or unset rows',
    async (name) => {
      const { marker, docs, unset } = await given(name);

      const [set, notSet] = await Promise.all([
        list({ q: marker, [`${name}[exists]`]: 'true' }),
        list({ q: marker, [`${name}[exists]`]: 'false' }),
      ]);

      expect(ids(set.body.rows)).toEqual(idsOf(docs));
      expect(ids(notSet.body.rows)).toEqual(idsOf([unset!]));
    },
  );

  test('when the owner filter names a user, then only their rows', async () => {
    const marker = aMarker();
    const owner = aUser();
    const [mine] = await givenArticles(svc.articles, [
      anArticleDoc({ [MARKER_FIELD]: `${marker} a`, userId: owner.id }),
      anArticleDoc({ [MARKER_FIELD]: `${marker} b` }),
    ]);

    const res = await list({ q: marker, user: owner.id });

    expect(ids(res.body.rows)).toEqual(idsOf([mine!]));
  });

  test.each([
    [`${MARKER_FIELD}[$ne]`, 'x'],
    [`${MARKER_FIELD}[regex]`, '.*'],
    ['createdAt[prefix]', '2026'],
    ['createdAt[gt]', 'yesterday'],
    ['createdAt[in]', '2026-01-01,soon'],
    ['user', 'not-an-id'],
    ['user[gt]', 'a'.repeat(24)],
    ['owner', 'a'.repeat(24)],
    ['updatedAt[exists]', 'true'],
  ])('when %s=%s, then 400 naming the parameter', async (param, value) => {
    const res = await list({ [param]: value });

    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'validation_failed', param });
  });
});
