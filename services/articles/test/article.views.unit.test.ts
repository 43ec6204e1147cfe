import { articleView } from '../src/http/article.views';
import { articleResource, type Article } from '../src/domain/article.model';

const article: Article = {
  id: '65f0c0ffee00000000000001',
  title: 'A title',
  content: 'Some content',
  userId: '65f0c0ffee00000000000002',
  createdAt: new Date('2026-01-02T03:04:05.006Z'),
  updatedAt: new Date('2026-02-03T04:05:06.007Z'),
};

describe('articleView', () => {
  test('when given an article, then the API view: id first, owner as user.id, ISO timestamps, nothing else', () => {
    const view = articleView(article);

    expect(view).toEqual({
      id: '65f0c0ffee00000000000001',
      title: 'A title',
      content: 'Some content',
      user: { id: '65f0c0ffee00000000000002' },
      createdAt: '2026-01-02T03:04:05.006Z',
      updatedAt: '2026-02-03T04:05:06.007Z',
    });
    expect(Object.keys(view)[0]).toBe('id');
    expect(view).not.toHaveProperty('userId');
  });

  test('when fields are selected, then only id and those fields, from a record loaded with just them', () => {
    expect(articleView({ id: article.id, userId: article.userId }, ['user'])).toEqual({ id: article.id, user: { id: article.userId } });
    expect(articleView({ id: article.id }, ['id'])).toEqual({ id: article.id });
  });

  test('when fields is undefined, then every field', () => {
    expect(Object.keys(articleView(article, undefined))).toEqual(['id', 'title', 'content', 'user', 'createdAt', 'updatedAt']);
  });

  test('the view renders exactly the fields the resource descriptor declares', () => {
    expect(Object.keys(articleView(article)).slice(1).sort()).toEqual(Object.keys(articleResource.fields).sort());
  });
});
