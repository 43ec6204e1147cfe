import { defineResource } from '@restgate/shared/resource';

/**
 * Everything about articles that is theirs: fields, listing and access. Schemas, views, indexes
 * and the listing rules follow from it; a generated resource is this service with this file rewritten.
 */
export const articleResource = defineResource({
  name: 'articles',
  singular: 'article',
  fields: {
    title: { type: 'string', required: true, max: 200, example: 'Hello, world' },
    // Not trimmed: whitespace can matter in content. Empty is allowed (a draft may start as a title).
    content: {
      type: 'text',
      required: true,
      max: 100_000,
      description: 'Body text, up to 100000 characters; may be empty.',
      example: 'The first article.',
    },
  },
  searchable: ['title', 'content'],
  sortable: ['createdAt', 'updatedAt', 'title'],
  defaultSort: '-createdAt',
  access: { create: 'user', list: 'public', read: 'public', update: 'owner', delete: 'owner' },
});
