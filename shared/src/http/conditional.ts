import { errors } from '../errors';

/**
 * Conditional requests on one resource: a strong `ETag` made of the record's id and version (the
 * version grows with every change), `If-None-Match` (answered 304 by the HTTP layer, which compares
 * it with the `ETag` of a GET), and `If-Match` on writes, checked here and then again by the write
 * itself, whose filter names the version.
 */

/** The strong entity tag of a record at a version. */
export function entityTag(id: string, version: number): string {
  return `"${id}.${version}"`;
}

/** The tags of an `If-Match` header: `*`, or the list of tags (weak ones never match a strong comparison). */
export function ifMatchTags(header: string | undefined): '*' | string[] | undefined {
  if (header === undefined) return undefined;
  const text = header;
  if (text.trim() === '*') return '*';
  return [...text.matchAll(/(W\/)?"[^"]*"/g)].filter((m) => !m[1]).map((m) => m[0]);
}

/** The `If-Match` header of a request, as the domain takes it (repeated headers joined). */
export function ifMatchOf(headers: { 'if-match'?: string | string[] }): string | undefined {
  const header = headers['if-match'];
  return Array.isArray(header) ? header.join(', ') : header;
}

/** Throws 412 `precondition_failed` unless `If-Match` is absent or matches `current` (the record's ETag, or any of its tags). */
export function assertIfMatch(ifMatch: string | undefined, current: string | readonly string[]): void {
  const tags = ifMatchTags(ifMatch);
  if (tags === undefined || tags === '*') return;
  if (typeof current === 'string' ? tags.includes(current) : current.some((tag) => tags.includes(tag))) return;
  throw errors.preconditionFailed();
}

/**
 * Whether `If-None-Match` names `etag` (weak comparison, `*` included): a GET then answers 304.
 * Decided here rather than by Express's `req.fresh`, which ignores the header whenever the request
 * says `Cache-Control: no-cache` (as fetch adds to every conditional request): that directive is
 * for caches, and the origin still answers the condition (RFC 9110 §13.1.2).
 */
export function noneMatchHits(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const text = Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch;
  if (text.trim() === '*') return true;
  const opaque = (tag: string) => tag.replace(/^W\//, '');
  return [...text.matchAll(/(?:W\/)?"[^"]*"/g)].some((m) => opaque(m[0]) === opaque(etag));
}
