import { errorCatalogue, problem, sharedErrorCatalogue, type CodeOf, type ErrorEntry } from '@restgate/shared';

/**
 * The error codes only this service answers, on top of `sharedErrorCatalogue`. Route specs list
 * these entries for their error responses, and docs/errors.md is generated from them.
 */
export const articleErrorCatalogue = errorCatalogue({
  article_not_found: { status: 404, title: 'Not found', detail: 'No article with this id.' },
} as const satisfies Record<string, ErrorEntry>);

export type ArticleErrorCode = CodeOf<typeof articleErrorCatalogue>;

/** Every code this service answers: shared's and its own. Route specs pick their error answers from here. */
export const articleCodes = { ...sharedErrorCatalogue, ...articleErrorCatalogue };

export const articleErrors = {
  notFound: () => problem(articleErrorCatalogue.article_not_found),
};
