import type { Principal } from '@restgate/shared';
import { assertUser } from '@restgate/shared/resource';
import type { Article, ArticleDeps, ArticleValues } from './article.model';
import { articleRules, hasFieldRules } from './article.rules';

export type CreateArticleInput = ArticleValues & {
  /** The creator becomes the owner; an owner named in the body is never read. */
  principal: Principal;
};

export async function createArticle({ articles, guard }: ArticleDeps, input: CreateArticleInput): Promise<Article> {
  const { principal, ...values } = input;
  assertUser(principal);
  const now = new Date();
  const record = { ...values, userId: principal.id, createdAt: now, updatedAt: now } as Omit<Article, 'id' | 'version'>;
  // A rule is judged on the record the create would make; a preset needs a user, as checked above.
  if (!articleRules.actions.create.preset || hasFieldRules) guard.assertCreate(record, values, principal);
  return articles.insert(record);
}
