import type { Schema } from 'joi';
import { Joi } from '@restgate/shared';
import { httpPageSchema, httpUrlSchema } from '@restgate/shared/http';
import { listingQuerySchema } from '@restgate/shared/data';
import { HTTP_PAGE_PATTERN, HTTP_URL_PATTERN } from '../src/http/http-url';
import { joiToJsonSchema } from '../src/openapi/joi-schema';
import { validateInput } from '../src/http/routes';

const request = (schema: Schema) => joiToJsonSchema(schema, undefined, { request: true });
const matches = (pattern: unknown, value: string) => new RegExp(pattern as string).test(value);

describe('joi → JSON Schema for requests', () => {
  test('when a string may not be empty, then minLength is 1 and NUL is excluded', () => {
    const schema = request(Joi.object({ token: Joi.string().max(512) }));
    const token = (schema.properties as Record<string, Record<string, unknown>>).token!;

    expect(token).toMatchObject({ minLength: 1, maxLength: 512, pattern: '^[^\\u0000]*$' });
  });

  test('when a string allows "", then it has no minLength', () => {
    const q = (request(Joi.object({ q: Joi.string().allow('').max(100) })).properties as Record<string, Record<string, unknown>>).q!;

    expect(q.minLength).toBeUndefined();
    expect(q.maxLength).toBe(100);
  });

  test('when a string is trimmed, then its bounds are a pattern on the value as sent', () => {
    const title = (request(Joi.object({ title: Joi.string().trim().min(1).max(5) })).properties as Record<string, Record<string, unknown>>)
      .title!;

    expect(title.maxLength).toBeUndefined();
    expect(['a', '  abcde  ', 'a b'].map((v) => matches(title.pattern, v))).toEqual([true, true, true]);
    expect(['', '   ', 'abcdef', '\ufeff', 'a\u0000'].map((v) => matches(title.pattern, v))).toEqual([false, false, false, false, false]);
  });

  test('when a body needs one of its fields, then the schema says anyOf required', () => {
    const body = request(Joi.object({ a: Joi.string(), b: Joi.string() }).or('a', 'b'));

    expect(body.anyOf).toEqual([{ required: ['a'] }, { required: ['b'] }]);
  });

  test('when page is documented, then it carries its fixed maximum and its default', () => {
    const query = request(listingQuerySchema({ searchable: ['a'], sortable: ['a'], selectable: ['a'] }));

    expect((query.properties as Record<string, Record<string, unknown>>).page).toMatchObject({ minimum: 1, maximum: 100, default: 1 });
  });

  test('when a URL field is documented, then its pattern is the one that validates', () => {
    const picture = (request(Joi.object({ picture: httpUrlSchema(2048) })).properties as Record<string, Record<string, unknown>>).picture!;

    expect(picture.pattern).toBe(HTTP_URL_PATTERN.source);
    expect(picture.format).toBeUndefined();
  });
});

describe('httpUrlSchema', () => {
  test.each(['https://example.com', ' http://a.example:8080/p?q=1#f ', 'HTTP://' + 'a'.repeat(64) + '.example'])('accepts %s', (url) => {
    expect(httpUrlSchema(2048).validate(url).error).toBeUndefined();
  });

  test.each(['http://', 'ftp://example.com', 'https://exa mple.com', 'https://example.com/é', 'javascript:alert(1)'])(
    'refuses %s',
    (url) => {
      expect(httpUrlSchema(2048).validate(url).error?.details[0]?.type).toBe('string.pattern.base');
    },
  );
});

describe('httpPageSchema', () => {
  test.each(['https://example.com', ' HTTP://a.example:8080/account/reset/ ', 'https://a.example/p@th/x'])('accepts %s', (url) => {
    expect(httpPageSchema(2048).validate(url).error).toBeUndefined();
  });

  test.each([
    'https://a.example/reset?next=',
    'https://a.example/reset?',
    'https://a.example/reset#',
    'https://user:pw@a.example/reset',
    'https://a.example@evil.example/reset',
    'ftp://a.example/reset',
  ])('refuses %s: the token would not be the last path segment, or the link carries credentials', (url) => {
    expect(httpPageSchema(2048).validate(url).error?.details[0]?.type).toBe('string.pattern.base');
  });

  test('when documented, then its pattern is the one that validates', () => {
    const link = (request(Joi.object({ link: httpPageSchema(2000) })).properties as Record<string, Record<string, unknown>>).link!;

    expect(link.pattern).toBe(HTTP_PAGE_PATTERN.source);
  });
});

describe('Joi (request strings)', () => {
  const schema = Joi.object({ name: Joi.string().min(3).max(5), pin: Joi.string().length(2), secret: Joi.string().max(4, 'utf8') });
  const rule = (value: Record<string, string>) => schema.validate(value).error?.details[0]?.type ?? 'ok';

  test('when a string holds characters outside the BMP, then min, max and length count each as one, as JSON Schema does', () => {
    expect([rule({ name: '😀😀😀' }), rule({ name: '😀😀😀😀😀' }), rule({ pin: '😀😀' })]).toEqual(['ok', 'ok', 'ok']);
    expect([rule({ name: '😀😀' }), rule({ name: '😀😀😀😀😀😀' }), rule({ pin: '😀' })]).toEqual([
      'string.min',
      'string.max',
      'string.length',
    ]);
  });

  test('when a length has an encoding, then it still counts bytes', () => {
    expect([rule({ secret: 'éé' }), rule({ secret: 'ééé' })]).toEqual(['ok', 'string.max']);
  });

  test('when the rules are described for the docs, then they keep their names', () => {
    expect((schema.describe().keys as Record<string, { rules: unknown[] }>).name!.rules).toEqual([
      { name: 'min', args: { limit: 3 } },
      { name: 'max', args: { limit: 5 } },
    ]);
  });
});

describe('validateInput', () => {
  const schema = Joi.object({ title: Joi.string(), tags: Joi.array().items(Joi.string()) });

  test('when a named field holds NUL, then it is refused with string.nul naming the field', () => {
    expect(() => validateInput(schema, { tags: ['a', 'b\u0000'] }, 'body')).toThrow(
      expect.objectContaining({
        status: 400,
        extras: expect.objectContaining({ param: 'tags', errors: [expect.objectContaining({ rule: 'string.nul' })] }),
      }),
    );
  });

  test('when only an unknown key holds NUL, then it is dropped unread', () => {
    expect(validateInput(schema.unknown(true), { title: 'ok', other: 'x\u0000' }, 'body')).toMatchObject({ title: 'ok' });
  });
});
