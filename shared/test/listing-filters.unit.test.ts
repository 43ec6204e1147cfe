import type { AppError } from '../src/errors';
import { Joi } from '../src/joi';
import { listingQuerySchema, type ListingQuery, type ListingSpec } from '../src/data/listing';
import { filterQuery, type FilterSpec } from '../src/data/listing-filters';
import { validateInput } from '../src/http/routes';

const filters: FilterSpec[] = [
  { name: 'title', type: 'string', value: Joi.string().trim().min(1).max(20) },
  { name: 'pages', type: 'integer', value: Joi.number().integer().min(1), optional: true },
  { name: 'kind', type: 'enum', values: ['a', 'b'] },
  { name: 'done', type: 'boolean', value: Joi.boolean() },
  { name: 'createdAt', type: 'date' },
  { name: 'user', type: 'id', dbField: 'userId' },
  { name: 'email', type: 'string', value: Joi.string(), ops: ['eq', 'prefix'] },
];
const spec: ListingSpec = { searchable: ['title'], sortable: ['createdAt'], selectable: ['title'], filters };
const schema = listingQuerySchema(spec);
const parse = (query: Record<string, unknown>): ListingQuery => validateInput(schema, query, 'query');
const mongo = (query: Record<string, unknown>) => filterQuery(parse(query).filters ?? [], filters);

function failure(query: Record<string, unknown>): { param: string; message: string } {
  try {
    parse(query);
  } catch (err) {
    return (err as AppError).extras as never;
  }
  throw new Error(`expected ${JSON.stringify(query)} to fail`);
}

describe('listing filters', () => {
  test('when a field is given bare or with [eq], then it is an equality on the typed value', () => {
    expect(mongo({ pages: '200' })).toEqual({ $and: [{ pages: { $eq: 200 } }] });
    expect(mongo({ 'pages[eq]': '200', done: 'true' })).toEqual({ $and: [{ pages: { $eq: 200 } }, { done: { $eq: true } }] });
  });

  test('when range operators are given, then they combine with AND, values typed (numbers, dates)', () => {
    expect(mongo({ 'pages[gte]': '0', 'pages[lt]': '10', 'createdAt[gt]': '2026-01-02T03:04:05Z' })).toEqual({
      $and: [{ pages: { $gte: 0 } }, { pages: { $lt: 10 } }, { createdAt: { $gt: new Date('2026-01-02T03:04:05Z') } }],
    });
  });

  test('when in, prefix, ne, exists and the owner are given, then each becomes its own operator, never a client-written one', () => {
    expect(
      mongo({ 'kind[in]': 'a,b', 'title[prefix]': 'A.b*', 'title[ne]': ' x ', 'pages[exists]': 'false', user: 'a'.repeat(24) }),
    ).toEqual({
      $and: [
        { title: { $ne: 'x' } },
        { title: { $regex: '^A\\.b\\*', $options: 'i' } },
        { pages: { $exists: false } },
        { kind: { $in: ['a', 'b'] } },
        { userId: { $eq: 'a'.repeat(24) } },
      ],
    });
  });

  test("when a field is named like a listing parameter (count), then count= stays the listing's and count[eq] filters", () => {
    const counted: ListingSpec = { ...spec, filters: [{ name: 'count', type: 'integer', value: Joi.number().integer() }] };
    const query = validateInput(listingQuerySchema(counted), { count: 'false', 'count[eq]': '3' }, 'query');

    expect(query.count).toBe(false);
    expect(query.filters).toEqual([{ field: 'count', op: 'eq', value: 3 }]);
  });

  test('when dates come with offsets, fractions, no seconds or as a bare date (a day past the end of its month rolls over), then they are read as written', () => {
    const values = (
      parse({ 'createdAt[in]': '0211-02-20T21:09Z,2026-01-02T03:04:05.5-14:35,2027-02-29,2026-04-31' }).filters![0]!.value as Date[]
    ).map((d) => d.toISOString());

    expect(values).toEqual([
      '0211-02-20T21:09:00.000Z',
      '2026-01-02T17:39:05.500Z',
      '2027-03-01T00:00:00.000Z',
      '2026-05-01T00:00:00.000Z',
    ]);
  });

  test('when title[in] lists values with blanks and empty items, then they are trimmed and the empty ones dropped', () => {
    expect(mongo({ 'title[in]': ' a,b ,,c' })).toEqual({ $and: [{ title: { $in: ['a', 'b', 'c'] } }] });
  });

  test.each([
    [{ 'title[$ne]': 'x' }, 'title[$ne]', 'title takes the operators eq, ne, in, prefix'],
    [{ 'pages[prefix]': '1' }, 'pages[prefix]', 'pages takes the operators'],
    [{ 'done[gt]': 'true' }, 'done[gt]', 'done takes the operators eq'],
    [{ 'title[exists]': 'true' }, 'title[exists]', 'title takes the operators'],
    [{ 'email[ne]': 'x' }, 'email[ne]', 'email takes the operators eq, prefix'],
    [{ nope: '1' }, 'nope', 'nope is not a parameter of this listing'],
    [{ 'pages[gte]': 'ten' }, 'pages[gte]', 'must be a number'],
    [{ pages: '0' }, 'pages', 'greater than or equal to 1'],
    [{ 'kind[in]': 'a,c' }, 'kind[in]', 'comma list'],
    [{ kind: 'c' }, 'kind', 'must be one of'],
    [{ 'createdAt[lt]': 'yesterday' }, 'createdAt[lt]', 'ISO 8601'],
    [{ 'createdAt[lt]': '2027-02-32' }, 'createdAt[lt]', 'ISO 8601'],
    [{ 'title[prefix]': 'a\u0000' }, 'title[prefix]', 'NUL'],
    [{ 'title[in]': '' }, 'title[in]', 'not allowed to be empty'],
    [{ user: 'me' }, 'user', 'pattern'],
    [{ title: 'x'.repeat(21) }, 'title', 'less than or equal to 20'],
    [{ 'pages[in]': Array.from({ length: 51 }, (_, i) => i).join(',') }, 'pages[in]', 'at most 50'],
    [{ title: ['a', 'b'] }, 'title', 'given 2 times'],
  ])('when %j, then a 400 names %s', (query, param, message) => {
    const extras = failure(query);

    expect(extras.param).toBe(param);
    expect(extras.message).toContain(message);
  });
});
