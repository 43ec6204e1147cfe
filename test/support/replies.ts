/**
 * Checks of successful replies at the gateway, next to shapes.ts's expectProblem: a JSON view of
 * the right shape, an empty 204, and a listing with its `X-Total-Count` and RFC 8288 `Link`.
 */
import Joi from 'joi';
import type { Reply } from './http';
import { expectShape } from './shapes';

const objectId = Joi.string().pattern(/^[0-9a-f]{24}$/);

/** `{ id, name, picture }`: what anyone may see of a user (shapes.ts has the full view). */
export const userPublicView = Joi.object({ id: objectId, name: Joi.string(), picture: Joi.string().uri() });

function statusError(reply: Reply, status: number): Error {
  return new Error(`expected status ${status}, got ${reply.status} ${reply.text.slice(0, 500)}`);
}

/** Asserts the status, a JSON content type, the body's shape and an echoed request id; returns the body. */
export function expectJson(reply: Reply, status: number, schema: Joi.Schema, what = 'body'): any {
  if (reply.status !== status) throw statusError(reply, status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(reply.headers.get('x-request-id')).toBeTruthy();
  expectShape(reply.body, schema, what);
  return reply.body;
}

/** Asserts a 204 with nothing in the body. */
export function expectNoContent(reply: Reply): void {
  if (reply.status !== 204) throw statusError(reply, 204);
  expect(reply.text).toBe('');
}

/** The `Link` header as rel → the link's path and query (what a client would request next). */
export function linksOf(reply: Reply): Record<string, { path: string; params: URLSearchParams }> {
  const header = reply.headers.get('link') ?? '';
  const links: Record<string, { path: string; params: URLSearchParams }> = {};
  for (const [, target, rel] of header.matchAll(/<([^>]*)>\s*;\s*rel="([^"]+)"/g)) {
    const url = new URL(target!, 'http://link.invalid');
    links[rel!] = { path: `${url.pathname}${url.search}`, params: url.searchParams };
  }
  return links;
}

export interface ListingExpectation {
  /** The total that matches, ignoring paging. */
  count: number;
  /** The page and page size the links must name. */
  page: number;
  limit: number;
  /** With `fields`: every row has exactly `id` and these. */
  fields?: string[];
  /** The page was reached by an `after` cursor: no `prev` (a cursor has no way back). */
  byCursor?: boolean;
}

/**
 * Asserts a listing reply: 200 `{ count, rows }`, each row of `rowSchema`'s shape (only `id` and
 * `fields` when given), `X-Total-Count` equal to `count`, and `first`/`prev`/`next`/`last` links
 * that name the right pages, keep the other parameters and never carry a token.
 */
export function expectListing(reply: Reply, rowSchema: Joi.ObjectSchema, expected: ListingExpectation): any[] {
  const body = expectJson(reply, 200, Joi.object({ count: Joi.number().integer().min(0), rows: Joi.array() }), 'listing');
  expect(body.count).toBe(expected.count);
  expect(reply.headers.get('x-total-count')).toBe(String(expected.count));
  expect(body.rows.length).toBeLessThanOrEqual(expected.limit);
  body.rows.forEach((row: Record<string, unknown>, index: number) => {
    if (expected.fields) {
      expect(Object.keys(row).sort()).toEqual([...new Set(['id', ...expected.fields])].sort());
      const { error } = rowSchema.validate(row, { presence: 'optional', convert: false });
      if (error) throw new Error(`row ${index} does not have the expected shape: ${error.message}\n${JSON.stringify(row)}`);
    } else {
      expectShape(row, rowSchema, `row ${index}`);
    }
  });

  const lastPage = Math.max(1, Math.ceil(expected.count / expected.limit));
  const links = linksOf(reply);
  const wanted: Record<string, number> = { first: 1, last: lastPage };
  if (expected.page > 1 && !expected.byCursor) wanted.prev = Math.min(expected.page - 1, lastPage);
  if (expected.page < lastPage) wanted.next = expected.page + 1;
  expect(Object.keys(links).sort()).toEqual(Object.keys(wanted).sort());
  for (const [rel, page] of Object.entries(wanted)) {
    // `next` carries the cursor of the page after this one, never a page number.
    const at = rel === 'next' ? { after: expect.stringMatching(/^[\w-]+\.[\w-]{43}$/) } : { page: String(page) };
    expect({ rel, page: links[rel]!.params.get('page'), after: links[rel]!.params.get('after'), limit: links[rel]!.params.get('limit') }).toEqual({
      rel,
      page: null,
      after: null,
      limit: String(expected.limit),
      ...at,
    });
    expect(links[rel]!.params.has('access_token')).toBe(false);
  }
  return body.rows;
}
