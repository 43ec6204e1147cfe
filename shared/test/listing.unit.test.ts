import type { AppError } from '../src/errors';
import {
  escapeRegex,
  LISTING_LIMITS,
  listingQuerySchema,
  listingResult,
  mongoSort,
  searchFilter,
  type ListingQuery,
  type ListingSpec,
} from '../src/data/listing';
import { validateInput } from '../src/http/routes';

const spec: ListingSpec = {
  searchable: ['title', 'content'],
  sortable: ['createdAt', 'updatedAt', 'title'],
  selectable: ['title', 'content', 'user'],
};

const parse = (query: Record<string, unknown>, s: ListingSpec = spec): ListingQuery => validateInput(listingQuerySchema(s), query, 'query');

/** The validation error `parse` throws, as the problem body would carry it. */
function failure(query: Record<string, unknown>): { param: unknown; message: unknown; errors: Array<{ param: string; rule: string }> } {
  try {
    parse(query);
  } catch (err) {
    return (err as AppError).extras as never;
  }
  throw new Error(`expected ${JSON.stringify(query)} to fail`);
}

const links = (header: string) =>
  Object.fromEntries(
    header.split(', ').map((part) => {
      const [, url, rel] = /^<([^>]*)>; rel="(\w+)"$/.exec(part)!;
      return [rel!, new URL(url!, 'http://x.test')];
    }),
  );

describe('listingQuerySchema', () => {
  test('when nothing is given, then page 1, limit 30, sort -createdAt, no q, all fields', () => {
    expect(parse({})).toEqual({ page: 1, limit: 30, sort: [['createdAt', -1]], count: true });
  });

  test('when the spec has its own default sort, then it is used', () => {
    expect(parse({}, { ...spec, defaultSort: 'title,-updatedAt' }).sort).toEqual([
      ['title', 1],
      ['updatedAt', -1],
    ]);
  });

  test('when values come as query strings, then they are converted', () => {
    expect(parse({ q: 'hello', page: '3', limit: '5', sort: 'title', fields: 'title,user' })).toEqual({
      q: 'hello',
      page: 3,
      limit: 5,
      sort: [['title', 1]],
      fields: ['title', 'user'],
      count: true,
    });
  });

  test('when an unknown parameter is given, then a 400 names it; access_token is no listing parameter but passes', () => {
    expect(failure({ foo: 'bar' })).toMatchObject({ param: 'foo', message: 'foo is not a parameter of this listing' });
    expect(failure({ 'title[$ne]': 'x' }).param).toBe('title[$ne]');
    expect(parse({ access_token: 't' })).toEqual({ page: 1, limit: 30, sort: [['createdAt', -1]], count: true });
  });

  test('when sort lists fields with spaces and minus signs, then they parse in order', () => {
    expect(parse({ sort: ' title , -createdAt,updatedAt' }).sort).toEqual([
      ['title', 1],
      ['createdAt', -1],
      ['updatedAt', 1],
    ]);
  });

  test('when fields has spaces or empty items, then they are ignored', () => {
    expect(parse({ fields: ' title,, user ' }).fields).toEqual(['title', 'user']);
  });

  test('when limits are at their bounds, then they pass', () => {
    expect(parse({ limit: '1' }).limit).toBe(1);
    expect(parse({ limit: String(LISTING_LIMITS.maxLimit) }).limit).toBe(100);
    expect(parse({ q: 'q'.repeat(LISTING_LIMITS.maxQ) }).q).toHaveLength(100);
    expect(parse({ q: '' }).q).toBe('');
    // A fixed page maximum, whatever the limit.
    expect(parse({ page: '100', limit: '100' }).page).toBe(100);
    expect(parse({ page: '100', limit: '1' }).page).toBe(100);
    expect(parse({ count: 'false' }).count).toBe(false);
  });

  test.each([
    { query: { limit: '101' }, param: 'limit', rule: 'number.max' },
    { query: { limit: '0' }, param: 'limit', rule: 'number.min' },
    { query: { limit: '2.5' }, param: 'limit', rule: 'number.integer' },
    { query: { limit: 'ten' }, param: 'limit', rule: 'number.base' },
    { query: { page: '0' }, param: 'page', rule: 'number.min' },
    { query: { page: '-1' }, param: 'page', rule: 'number.min' },
    { query: { page: '101', limit: '30' }, param: 'page', rule: 'number.max' },
    { query: { page: '101', limit: '1' }, param: 'page', rule: 'number.max' },
    { query: { count: 'no' }, param: 'count', rule: 'boolean.base' },
    { query: { after: 'not-a-cursor' }, param: 'after', rule: 'string.pattern.base' },
    { query: { foo: '1' }, param: 'foo', rule: 'query.unknown' },
    { query: { q: 'q'.repeat(101) }, param: 'q', rule: 'string.max' },
    { query: { q: ['a', 'b'] }, param: 'q', rule: 'query.repeated' },
    { query: { q: { $ne: 1 } }, param: 'q', rule: 'string.base' },
    { query: { sort: 'password' }, param: 'sort', rule: 'custom' },
    { query: { sort: '-password' }, param: 'sort', rule: 'custom' },
    { query: { sort: 'content' }, param: 'sort', rule: 'custom' },
    { query: { sort: '' }, param: 'sort', rule: 'string.empty' },
    { query: { sort: ',' }, param: 'sort', rule: 'custom' },
    { query: { fields: 'password' }, param: 'fields', rule: 'custom' },
    { query: { fields: '-title' }, param: 'fields', rule: 'custom' },
    { query: { fields: '' }, param: 'fields', rule: 'string.empty' },
  ])('when $query, then a validation error naming $param ($rule)', ({ query, param, rule }) => {
    const extras = failure(query);

    expect(extras.param).toBe(param);
    expect(extras.message).toEqual(expect.any(String));
    expect(extras.errors[0]).toMatchObject({ param, rule });
  });

  test('when page is past the fixed maximum, then the 400 names page', () => {
    expect(failure({ page: '400' })).toMatchObject({ param: 'page', message: 'page must be less than or equal to 100' });
  });

  test('when after comes with page, then the 400 names after', () => {
    const extras = failure({ page: '2', after: `${'a'.repeat(10)}.${'b'.repeat(43)}` });

    expect(extras.param).toBe('after');
    expect(extras.message).toBe('after and page cannot be combined: the cursor says where the page starts');
  });

  test('when limit is out of range, then the error names limit first (not a page depth computed from it)', () => {
    const extras = failure({ limit: '500', page: '50' });

    expect(extras.param).toBe('limit');
    expect(extras.errors.map((e) => e.param)).toEqual(['limit']);
  });

  test('when sort names a field that is not allowed, then the message lists the allowed ones', () => {
    expect(failure({ sort: 'password' }).message).toBe('sort may only use createdAt, updatedAt, title (got "password")');
  });
});

describe('escapeRegex', () => {
  test.each(['(a+)+$', '.*', '[a-z]', 'a|b', '\\d', '^x?', '{1,2}', 'a/b'])(
    'when "%s" is escaped, then the regex matches exactly that text',
    (text) => {
      const match = new RegExp(escapeRegex(text)).exec(`before ${text} after`);

      expect(match?.[0]).toBe(text);
    },
  );

  test('when (a+)+$ is escaped, then it matches only the text, not what the pattern would (a run of a’s)', () => {
    const regex = new RegExp(escapeRegex('(a+)+$'));

    expect(escapeRegex('(a+)+$')).toBe('\\(a\\+\\)\\+\\$');
    expect(regex.test('aaaa')).toBe(false);
    expect(regex.test(`${'a'.repeat(10_000)}!`)).toBe(false);
  });
});

describe('searchFilter', () => {
  test('when q is missing or empty, then no filter', () => {
    expect(searchFilter(undefined, ['title'])).toEqual({});
    expect(searchFilter('', ['title'])).toEqual({});
  });

  test('when q is given, then a case-insensitive $regex per field, escaped, in an $or', () => {
    expect(searchFilter('a.b', ['title', 'content'])).toEqual({
      $or: [{ title: { $regex: 'a\\.b', $options: 'i' } }, { content: { $regex: 'a\\.b', $options: 'i' } }],
    });
  });
});

describe('mongoSort', () => {
  test('when sorting, then fields in order, mapped to database names, with _id breaking ties in the last direction', () => {
    expect(mongoSort([['createdAt', -1]])).toEqual({ createdAt: -1, _id: -1 });
    expect(
      mongoSort([
        ['title', 1],
        ['createdAt', -1],
      ]),
    ).toEqual({ title: 1, createdAt: -1, _id: -1 });
    expect(
      Object.keys(
        mongoSort([
          ['title', 1],
          ['createdAt', -1],
        ]),
      ),
    ).toEqual(['title', 'createdAt', '_id']);
    expect(mongoSort([['user', 1]], (f) => (f === 'user' ? 'userId' : f))).toEqual({ userId: 1, _id: 1 });
  });

  test('when the sort already names _id, then it is not added twice', () => {
    expect(mongoSort([['id', 1]], (f) => (f === 'id' ? '_id' : f))).toEqual({ _id: 1 });
  });
});

describe('listingResult', () => {
  const query = (page: number, limit: number, extra: Partial<ListingQuery> = {}): ListingQuery => ({
    page,
    limit,
    sort: [['createdAt', -1]],
    ...extra,
  });

  test('when rows and count are given, then 200 { count, rows } with X-Total-Count', () => {
    const result = listingResult([{ id: 'a' }], { count: 7 }, query(1, 1), '/things');

    expect(result.status).toBe(200);
    expect(result.body).toEqual({ count: 7, rows: [{ id: 'a' }] });
    expect(result.headers['X-Total-Count']).toBe('7');
  });

  test('when on a middle page, then first, prev, next and last, each with page and limit, keeping the other parameters', () => {
    const { headers } = listingResult([], { count: 25 }, query(2, 10), '/things?q=hi&sort=-title');

    const l = links(headers.Link);
    expect(Object.keys(l)).toEqual(['first', 'prev', 'next', 'last']);
    expect(Object.fromEntries(Object.entries(l).map(([rel, url]) => [rel, url.searchParams.get('page')]))).toEqual({
      first: '1',
      prev: '1',
      next: '3',
      last: '3',
    });
    for (const url of Object.values(l)) {
      expect(url.pathname).toBe('/things');
      expect(url.searchParams.get('limit')).toBe('10');
      expect(url.searchParams.get('q')).toBe('hi');
      expect(url.searchParams.get('sort')).toBe('-title');
    }
  });

  test('when on the first page, then no prev; on the last, no next', () => {
    expect(Object.keys(links(listingResult([], { count: 25 }, query(1, 10), '/things').headers.Link))).toEqual(['first', 'next', 'last']);
    expect(Object.keys(links(listingResult([], { count: 25 }, query(3, 10), '/things').headers.Link))).toEqual(['first', 'prev', 'last']);
  });

  test('when nothing matches, then first and last both point at page 1', () => {
    const l = links(listingResult([], { count: 0 }, query(1, 30), '/things').headers.Link);

    expect(Object.keys(l)).toEqual(['first', 'last']);
    expect(l.last!.searchParams.get('page')).toBe('1');
  });

  test('when the page is past the end, then prev points at the last page and there is no next', () => {
    const l = links(listingResult([], { count: 25 }, query(9, 10), '/things').headers.Link);

    expect(l.prev!.searchParams.get('page')).toBe('3');
    expect(l.last!.searchParams.get('page')).toBe('3');
    expect(l.next).toBeUndefined();
  });

  test('when the URL carries access_token, then no link carries it', () => {
    const { headers } = listingResult([], { count: 25 }, query(2, 10), '/things?access_token=s3cr3t&q=x&page=2');

    expect(headers.Link).not.toMatch(/access_token|s3cr3t/);
    expect(links(headers.Link).next!.searchParams.get('q')).toBe('x');
  });

  test('when q holds regex characters, a raw "?" or "&", then links carry it encoded and intact', () => {
    const { headers } = listingResult([], { count: 25 }, query(1, 10), '/things?q=(a%2B)%2B$%20why?&fields=title');

    const next = links(headers.Link).next!;
    expect(next.searchParams.get('q')).toBe('(a+)+$ why?');
    expect(next.searchParams.get('fields')).toBe('title');
    expect(headers.Link).not.toMatch(/[<][^>]*\s[^>]*[>]/);
  });
});

describe('repeated scalar parameters', () => {
  test('when limit is given twice (limit=2&limit=3), then the 400 says it was repeated, not that it is no number', () => {
    const extras = failure({ limit: ['2', '3'] });

    expect(extras).toMatchObject({ param: 'limit', message: 'limit was given 2 times; send it once' });
    expect(extras.errors).toEqual([{ param: 'limit', message: 'limit was given 2 times; send it once', rule: 'query.repeated' }]);
  });

  test('when q is given twice, then it is named the same way', () => {
    expect(failure({ q: ['a', 'b'] })).toMatchObject({ param: 'q', message: 'q was given 2 times; send it once' });
  });
});
