import type { ListingQuery } from '@restgate/shared';
import type { Article, ArticleDeps } from './article.model';
import type { Listing, Selected } from './resource';

export async function listArticles({ articles }: ArticleDeps, query: ListingQuery): Promise<Listing<Selected<Article>>> {
  return articles.list(query);
}
