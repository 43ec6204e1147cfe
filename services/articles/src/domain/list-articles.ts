import type { ListingQuery } from '@restgate/shared/data';
import type { Listing, Selected } from '@restgate/shared/resource';
import type { Article, ArticleDeps } from './article.model';

export async function listArticles({ articles }: ArticleDeps, query: ListingQuery): Promise<Listing<Selected<Article>>> {
  return articles.list(query);
}
