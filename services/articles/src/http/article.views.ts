import type { Article, ArticleField } from '../domain/article.model';
import { defineView } from './view';

/** `{ id, title, content, user: { id }, createdAt, updatedAt }`, timestamps as ISO 8601. */
export const articleView = defineView<Article, ArticleField>({
  title: (article) => article.title,
  content: (article) => article.content,
  user: (article) => ({ id: article.userId }),
  createdAt: (article) => article.createdAt.toISOString(),
  updatedAt: (article) => article.updatedAt.toISOString(),
});
