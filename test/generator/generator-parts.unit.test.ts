/** The generator's pure parts: names, field specs, shared-file edits, and the all-or-nothing write. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface Names {
  plural: string;
  singular: string;
  camel: string;
  camelPlural: string;
  pascal: string;
  pascalPlural: string;
  upper: string;
  snake: string;
  a: string;
  builder: string;
  upstreamKey: string;
}
interface Field {
  name: string;
  type: string;
  required: boolean;
  min?: number;
  max?: number;
  values?: string[];
}
interface Plan {
  writes: Array<{ path: string; content: string }>;
  links: Array<{ path: string; target: string }>;
  unlinks: string[];
  removeDirs: string[];
}

/* eslint-disable @typescript-eslint/no-require-imports */
const { namesOf } = require('../../scripts/generator/names.cjs') as { namesOf: (plural: string, singular?: string) => Names };
const { parseFields } = require('../../scripts/generator/fields.cjs') as { parseFields: (spec: string) => Field[] };
const edits = require('../../scripts/generator/edits.cjs') as Record<string, (text: string, c: unknown, file?: string) => string> & {
  closingBracket: (text: string, open: number) => number;
};
const { applyPlan } = require('../../scripts/generator/apply.cjs') as { applyPlan: (root: string, plan: Plan) => void };
/* eslint-enable @typescript-eslint/no-require-imports */

describe('namesOf', () => {
  test.each([
    ['books', '', { singular: 'book', pascal: 'Book', camelPlural: 'books', upper: 'BOOKS', a: 'a book', builder: 'aBook' }],
    ['articles', '', { singular: 'article', pascal: 'Article', a: 'an article', builder: 'anArticle', snake: 'article' }],
    ['categories', '', { singular: 'category', pascalPlural: 'Categories' }],
    ['boxes', '', { singular: 'box', camel: 'box' }],
    [
      'blog-posts',
      '',
      {
        singular: 'blog-post',
        camel: 'blogPost',
        pascalPlural: 'BlogPosts',
        upper: 'BLOG_POSTS',
        snake: 'blog_post',
        upstreamKey: "'blog-posts'",
      },
    ],
    ['people', ' (--singular person)', { singular: 'person', pascal: 'Person', camelPlural: 'people', builder: 'aPerson' }],
  ])('when the name is %s%s, then every spelling follows', (plural, singular, expected) => {
    const given = /--singular (\S+)\)/.exec(singular)?.[1];
    expect(namesOf(plural, given)).toMatchObject({ plural, ...expected });
  });
});

describe('parseFields', () => {
  test('when types and modifiers are given, then each field says what it is, with the defaults filled in', () => {
    expect(parseFields('title:string:required, body:text, n:integer:min=-2:max=9, price:number:min=0.5, status:enum(a|b-c)')).toEqual([
      { name: 'title', type: 'string', required: true, values: undefined, min: 1, max: 1000 },
      { name: 'body', type: 'text', required: false, values: undefined, min: 0, max: 100_000 },
      { name: 'n', type: 'integer', required: false, values: undefined, min: -2, max: 9 },
      { name: 'price', type: 'number', required: false, values: undefined, min: 0.5, max: undefined },
      { name: 'status', type: 'enum', required: false, values: ['a', 'b-c'], min: undefined, max: undefined },
    ]);
  });
});

describe('shared-file edits', () => {
  const c = {
    names: { plural: 'books', upper: 'BOOKS', upstreamKey: 'books' },
    port: 9004,
    access: { create: 'user', list: 'public', read: 'owner', update: 'none', delete: 'admin' },
  };
  const stack = [
    "// a [bracket] in a comment, and one in a string: ']'",
    'const SERVICES = [',
    '  {',
    "    name: 'articles',",
    "    secrets: ['PRINCIPAL_SECRET'],",
    '  },',
    '];',
    'const GATEWAY = {};',
    '',
  ].join('\n');

  test('when a service is added to the SERVICES list and removed again, then the file is as it was', () => {
    const added = edits.addToStack!(stack, c, 'stack.cjs');

    expect(added).toContain("  {\n    name: 'books',\n    dir: 'services/books',\n    portEnv: 'BOOKS_PORT',\n    defaultPort: 9004,");
    expect(added.indexOf("name: 'books'")).toBeLessThan(added.indexOf('];'));
    expect(edits.removeFromStack!(added, { plural: 'books' }, 'stack.cjs')).toBe(stack);
  });

  test('when brackets sit in strings and comments, then the matching one is still found', () => {
    const text = '[ \'a]\', /* ] */ { b: "[" }, // ]\n c ]';

    expect(edits.closingBracket(text, 0)).toBe(text.length - 1);
  });

  test('when policy rows are added, then owner becomes user at the gateway, none adds no row, and removal restores the file', () => {
    const policy = [
      'export const UPSTREAMS = {',
      "  articles: 'ARTICLES_URL',",
      '} as const satisfies Record<string, keyof GatewayConfig>;',
      '',
      'export const POLICY_TABLE: readonly PolicyRow[] = [',
      "  { method: 'get', path: '/articles', level: 'public', upstream: 'articles' },",
      '];',
      '',
    ].join('\n');

    const added = edits.addToPolicy!(policy, c, 'policy.ts');

    expect(added).toContain("  books: 'BOOKS_URL',\n} as const");
    expect(added).toContain("  { method: 'get', path: '/books/:id', level: 'user', upstream: 'books' },");
    expect(added).toContain("  { method: 'delete', path: '/books/:id', level: 'admin', upstream: 'books' },\n];");
    expect(added).not.toMatch(/method: '(put|patch)', path: '\/books/);
    expect(edits.removeFromPolicy!(added, { plural: 'books', upstreamKey: 'books' })).toBe(policy);
  });
});

describe('applyPlan', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-apply-'));
    fs.writeFileSync(path.join(dir, 'shared.txt'), 'before\n');
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('when a write fails half-way, then what was written is undone and no temporary file is left', () => {
    const plan: Plan = {
      writes: [
        { path: 'new/deep/file.txt', content: 'new\n' },
        { path: 'shared.txt', content: 'after\n' },
        // A file cannot hold a folder: this one fails.
        { path: 'shared.txt/inside.txt', content: 'x' },
      ],
      links: [],
      unlinks: [],
      removeDirs: [],
    };

    expect(() => applyPlan(dir, plan)).toThrow();
    expect(fs.readdirSync(dir)).toEqual(['shared.txt']);
    expect(fs.readFileSync(path.join(dir, 'shared.txt'), 'utf8')).toBe('before\n');
  });

  test('when a plan removes a folder and a later step fails, then the folder comes back', () => {
    fs.mkdirSync(path.join(dir, 'services', 'books', 'src'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'services', 'books', 'src', 'start.ts'), 'start\n');
    const plan: Plan = { writes: [], links: [], unlinks: ['not-a-link'], removeDirs: ['services/books'] };

    expect(() => applyPlan(dir, plan)).toThrow();
    expect(fs.readFileSync(path.join(dir, 'services', 'books', 'src', 'start.ts'), 'utf8')).toBe('start\n');
    expect(fs.readdirSync(path.join(dir, 'services'))).toEqual(['books']);
  });
});
