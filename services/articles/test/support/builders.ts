/**
 * Builders derived from the resource definition: valid bodies, stored documents and the views the
 * API shows for them, whatever the fields are. The tests use them so that they hold for every
 * resource generated from this service.
 */
import { ObjectId, type Collection } from 'mongodb';
import type { Principal } from '@restgate/shared';
import { lengthBounds, RULE_ACTIONS, type FieldDef } from '@restgate/shared/resource';
import { uniqueSuffix } from '@restgate/shared/testing';
import { articleRules } from '../../src/domain/article.rules';
import { articleResource } from '../../src/resource';

export const FIELDS: Record<string, FieldDef> = articleResource.fields;
export const FIELD_NAMES = Object.keys(FIELDS);
export const REQUIRED = FIELD_NAMES.filter((name) => FIELDS[name]!.required);
const isText = (name: string) => ['string', 'text'].includes(FIELDS[name]!.type);

/** The searchable text field the tests put their unique marker in, to find only their own records with `q`. */
export const MARKER_FIELD = articleResource.searchable.find((name) => isText(name) && lengthBounds(FIELDS[name]!).max >= 40)!;
/** A sortable text field besides the timestamps, if the resource has one. */
export const SORT_FIELD =
  articleResource.sortable.find((name) => name !== MARKER_FIELD && FIELD_NAMES.includes(name) && isText(name)) ??
  (articleResource.sortable as readonly string[]).find((name) => name === MARKER_FIELD);

/** The stored shape, as the repository writes it. */
export type ArticleDoc = { _id: ObjectId; userId: string; createdAt: Date; updatedAt: Date } & Record<string, unknown>;
export type Body = Record<string, unknown>;

type UserPrincipal = Extract<Principal, { kind: 'user' }>;

export const MASTER: Principal = { kind: 'master' };

export function aUser(overrides: Partial<UserPrincipal> = {}): UserPrincipal {
  return { kind: 'user', id: new ObjectId().toHexString(), role: 'user', ...overrides };
}

export function anAdmin(): UserPrincipal {
  return aUser({ role: 'admin' });
}

/** A word no other test uses: put it in the marker field, then search it with `q` to see only this test's rows. */
export function aMarker(): string {
  return `mk${uniqueSuffix()}`;
}

/** A valid value of a field as a client sends it (JSON), unique where the type allows. */
export function aValue(name: string): unknown {
  const field = FIELDS[name]!;
  const suffix = uniqueSuffix();
  switch (field.type) {
    case 'string':
    case 'text':
      return `${name} ${suffix}`.slice(0, lengthBounds(field).max);
    case 'email':
      return `u${suffix}@example.com`;
    case 'url':
      return `https://example.com/${suffix}`;
    case 'integer':
      return Math.max(field.min ?? 0, Math.min(field.max ?? 1000, 7));
    case 'number':
      return Math.max(field.min ?? 0, Math.min(field.max ?? 1000, 7.5));
    case 'boolean':
      return true;
    case 'date':
      return '2026-01-02T03:04:05.006Z';
    case 'enum':
      return field.values![0];
  }
}

/** A valid create body: every field. */
export function anArticle(overrides: Body = {}): Body {
  return { ...Object.fromEntries(FIELD_NAMES.map((name) => [name, aValue(name)])), ...overrides };
}

/** A body value as it is stored (dates as dates). */
export function stored(name: string, value: unknown): unknown {
  return FIELDS[name]?.type === 'date' && typeof value === 'string' ? new Date(value) : value;
}

/** A stored article, created a minute ago unless told otherwise. */
export function anArticleDoc(overrides: Partial<ArticleDoc> = {}): ArticleDoc {
  const createdAt = overrides.createdAt ?? new Date(Date.now() - 60_000);
  const body = anArticle();
  return {
    _id: new ObjectId(),
    ...Object.fromEntries(Object.entries(body).map(([name, value]) => [name, stored(name, value)])),
    userId: aUser().id,
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  };
}

/** Stores the articles directly (arrange step) and returns them. */
export async function givenArticles(collection: Collection<ArticleDoc>, docs: ArticleDoc[]): Promise<ArticleDoc[]> {
  await collection.insertMany(docs);
  return docs;
}

export async function givenArticle(collection: Collection<ArticleDoc>, overrides: Partial<ArticleDoc> = {}): Promise<ArticleDoc> {
  const [doc] = await givenArticles(collection, [anArticleDoc(overrides)]);
  return doc!;
}

const json = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/** The view the API returns for a stored article. */
export function viewOf(doc: ArticleDoc): Record<string, unknown> {
  return {
    id: doc._id.toHexString(),
    ...Object.fromEntries(FIELD_NAMES.filter((name) => doc[name] !== undefined).map((name) => [name, json(doc[name])])),
    user: { id: doc.userId },
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
}

/** A value of the wrong shape for a field, with the joi rule that refuses it. */
export interface BadValue {
  case: string;
  param: string;
  value: unknown;
  rule: string;
}

/** Every kind of bad value the schemas must refuse, for every field. */
export function badValues(): BadValue[] {
  const cases: BadValue[] = [];
  for (const name of FIELD_NAMES) {
    const field = FIELDS[name]!;
    const add = (what: string, value: unknown, rule: string) => cases.push({ case: `${name} is ${what}`, param: name, value, rule });
    switch (field.type) {
      case 'string':
      case 'text': {
        const { min, max } = lengthBounds(field);
        add(`${max + 1} characters long`, 'x'.repeat(max + 1), 'string.max');
        if (field.type === 'string') add('blank', '   ', 'string.empty');
        else if (min > 0) add('empty', '', 'string.empty');
        add('an operator object', { $ne: 1 }, 'string.base');
        add('a number', 5, 'string.base');
        add('null', null, 'string.base');
        add('an array', ['a'], 'string.base');
        break;
      }
      case 'email':
        add('not an e-mail address', 'not-an-email', 'string.email');
        add('an operator object', { $ne: 1 }, 'string.base');
        break;
      case 'url':
        add('not an http(s) URL', 'not a url', 'string.pattern.base');
        break;
      case 'integer':
      case 'number':
        add('not a number', 'abc', 'number.base');
        add('an operator object', { $gt: 1 }, 'number.base');
        if (field.type === 'integer') add('a fraction', 1.5, 'number.integer');
        if (field.min !== undefined) add('below its minimum', field.min - 1, 'number.min');
        if (field.max !== undefined) add('above its maximum', field.max + 1, 'number.max');
        break;
      case 'boolean':
        add('not a boolean', 'maybe', 'boolean.base');
        break;
      case 'date':
        add('not a date', 'not a date', 'date.format');
        break;
      case 'enum':
        add('not one of its values', 'no-such-value', 'any.only');
        break;
    }
  }
  return cases;
}

/** A body as a form sends it: every value as text. */
export function formOf(body: Body): URLSearchParams {
  return new URLSearchParams(Object.entries(body).map(([name, value]): [string, string] => [name, String(value)]));
}

/** A body as it is stored: each value as the service keeps it. */
export function storedBody(body: Body): Body {
  return Object.fromEntries(Object.entries(body).map(([name, value]) => [name, stored(name, value)]));
}

/** A body as the API shows it back (dates as ISO 8601). */
export function shownBody(body: Body): Body {
  return Object.fromEntries(Object.entries(storedBody(body)).map(([name, value]) => [name, json(value)]));
}

/** Who may do what (the definition's levels); the tests pick their callers by them. */
export const ACCESS = articleResource.access;

/**
 * A caller `level` lets in: nobody for public, the owner for owner, else a user, an admin or the
 * master key as the level says.
 */
export function callerFor(level: string, owner: UserPrincipal = aUser()): Principal | undefined {
  switch (level) {
    case 'public':
      return undefined;
    case 'owner':
      return owner;
    case 'admin':
      return anAdmin();
    case 'master':
      return MASTER;
    default:
      return owner;
  }
}

/** A user who may create (the creator owns what they create). */
export function aCreator(): UserPrincipal {
  return ACCESS.create === 'admin' ? anAdmin() : aUser();
}

const fieldRules = Object.values(articleRules.fields);
/**
 * The actions whose level tests do not apply: those with a rule expression in `resource.ts`, and
 * reads, lists or writes that field rules change. article.rules.test.ts checks them, from the rules.
 */
export const RULED: Record<(typeof RULE_ACTIONS)[number], boolean> = {
  list: !articleRules.actions.list.preset || fieldRules.some((f) => f.read),
  read: !articleRules.actions.read.preset || fieldRules.some((f) => f.read),
  create: !articleRules.actions.create.preset || fieldRules.some((f) => f.write),
  update: !articleRules.actions.update.preset || fieldRules.some((f) => f.write || f.read),
  delete: !articleRules.actions.delete.preset || fieldRules.some((f) => f.read),
};
/** `describe`, or `describe.skip` when one of `actions` has a rule the level tests do not know. */
export const describeUnless = (...actions: Array<keyof typeof RULED>) => (actions.some((a) => RULED[a]) ? describe.skip : describe);
