import { defineView } from '@restgate/shared/resource';
import type { Article } from '../domain/article.model';
import { articleResource } from '../resource';

/** `{ id, title, content, user: { id }, createdAt, updatedAt }`, timestamps as ISO 8601. */
export const articleView = defineView<Article>(articleResource);
