import { articleErrors } from '../errors';
import type { Article, ArticleDeps } from './article.model';

/** The article, or 404 (also for an id that is not well formed). */
export async function getArticle({ articles }: ArticleDeps, id: string): Promise<Article> {
  const article = await articles.findById(id);
  if (!article) throw articleErrors.notFound();
  return article;
}
