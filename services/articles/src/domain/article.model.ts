import type { ApiFieldOf, ModelOf, ResourceRepository, RuleGuard, ValuesOf } from '@restgate/shared/resource';
import { articleResource } from '../resource';

export { articleResource };

export type Article = ModelOf<typeof articleResource>;
/** What a client may set. */
export type ArticleValues = ValuesOf<typeof articleResource>;
export type ArticleChanges = Partial<ArticleValues>;
export type ArticleField = ApiFieldOf<typeof articleResource>;

/** Storage as the use cases need it; plain objects in and out. */
export type ArticleRepository = ResourceRepository<Article>;

export interface ArticleDeps {
  articles: ArticleRepository;
  /** The use cases of rule expressions (domain/article.rules.ts). */
  guard: RuleGuard;
}
