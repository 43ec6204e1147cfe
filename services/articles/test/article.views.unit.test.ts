import { articleView } from '../src/http/article.views';
import type { Article } from '../src/domain/article.model';
import { anArticleDoc, FIELD_NAMES, viewOf } from './support/builders';

/** A model as the repository returns it: the stored document with `id` for `_id`. */
function anArticleModel(): Article {
  const { _id, ...fields } = anArticleDoc();
  return { id: _id.toHexString(), ...fields } as unknown as Article;
}

describe('articleView', () => {
  test('when given an article, then the API view: id first, each field, owner as user.id, ISO timestamps, nothing else', () => {
    const doc = anArticleDoc();
    const { _id, ...fields } = doc;

    const view = articleView({ id: _id.toHexString(), ...fields } as unknown as Article);

    expect(view).toEqual(viewOf(doc));
    expect(Object.keys(view)).toEqual(['id', ...FIELD_NAMES, 'user', 'createdAt', 'updatedAt']);
    expect(view).not.toHaveProperty('userId');
  });

  test('when fields are selected, then only id and those fields, from a record loaded with just them', () => {
    const article = anArticleModel();

    expect(articleView({ id: article.id, userId: article.userId }, ['user'])).toEqual({ id: article.id, user: { id: article.userId } });
    expect(articleView({ id: article.id }, ['id'])).toEqual({ id: article.id });
  });

  test('when fields is undefined, then every field', () => {
    expect(Object.keys(articleView(anArticleModel(), undefined))).toEqual(['id', ...FIELD_NAMES, 'user', 'createdAt', 'updatedAt']);
  });
});
