import { ObjectId, type Collection } from 'mongodb';
import type { Principal } from '@restgate/shared';
import { uniqueSuffix } from '@restgate/shared/testing';

/** The stored shape, as the repository writes it. */
export interface ArticleDoc {
  _id: ObjectId;
  title: string;
  content: string;
  userId: string;
  createdAt: Date;
  updatedAt: Date;
}

type UserPrincipal = Extract<Principal, { kind: 'user' }>;

export const MASTER: Principal = { kind: 'master' };

export function aUser(overrides: Partial<UserPrincipal> = {}): UserPrincipal {
  return { kind: 'user', id: new ObjectId().toHexString(), role: 'user', ...overrides };
}

export function anAdmin(): UserPrincipal {
  return aUser({ role: 'admin' });
}

/** A word no other test uses: put it in titles, then search it with `q` to see only this test's rows. */
export function aMarker(): string {
  return `mk${uniqueSuffix()}`;
}

/** A valid create/update body. */
export function anArticle(overrides: Partial<{ title: string; content: string }> = {}): { title: string; content: string } {
  return { title: `Article ${aMarker()}`, content: `Content ${uniqueSuffix()}`, ...overrides };
}

/** A stored article, created a minute ago unless told otherwise. */
export function anArticleDoc(overrides: Partial<ArticleDoc> = {}): ArticleDoc {
  const createdAt = overrides.createdAt ?? new Date(Date.now() - 60_000);
  return {
    _id: new ObjectId(),
    ...anArticle(),
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

/** The view the API returns for a stored article. */
export function viewOf(doc: ArticleDoc): Record<string, unknown> {
  return {
    id: doc._id.toHexString(),
    title: doc.title,
    content: doc.content,
    user: { id: doc.userId },
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
}
