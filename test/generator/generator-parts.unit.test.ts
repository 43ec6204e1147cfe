/** The generator's pure parts: names, field specs, renaming, the written definition, shared-file edits, and the all-or-nothing write. */
import { spawnSync } from 'node:child_process';
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
  human: string;
  humanPlural: string;
  article: string;
}
interface Field {
  name: string;
  type: string;
  required: boolean;
  min?: number;
  max?: number;
  values?: string[];
  filter: boolean;
  index: boolean;
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
const edits = require('../../scripts/generator/edits.cjs') as Record<
  string,
  (text: string, c: unknown, file?: string, pkg?: unknown) => string
>;
const { renameInSource, renamePath } = require('../../scripts/generator/rename.cjs') as {
  renameInSource: (source: string, names: Names) => string;
  renamePath: (rel: string, names: Names) => string;
};
const { renderDefinition } = require('../../scripts/generator/definition.cjs') as { renderDefinition: (spec: unknown) => string };
const { buildSpec } = require('../../scripts/generator/spec.cjs') as { buildSpec: (options: Record<string, string>) => unknown };
const registry = require('../../scripts/generator/registry.cjs') as {
  parseRegistry: (text: string) => unknown;
  serialize: (registry: unknown) => string;
};
const { applyPlan } = require('../../scripts/generator/apply.cjs') as { applyPlan: (root: string, plan: Plan) => void };
/* eslint-enable @typescript-eslint/no-require-imports */

describe('namesOf', () => {
  test.each([
    ['books', '', { singular: 'book', pascal: 'Book', camelPlural: 'books', upper: 'BOOKS', article: 'a', human: 'book' }],
    ['articles', '', { singular: 'article', pascal: 'Article', article: 'an', snake: 'article' }],
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
        human: 'blog post',
      },
    ],
    ['people', ' (--singular person)', { singular: 'person', pascal: 'Person', camelPlural: 'people', human: 'person' }],
  ])('when the name is %s%s, then every spelling follows', (plural, singular, expected) => {
    const given = /--singular (\S+)\)/.exec(singular)?.[1];
    expect(namesOf(plural, given)).toMatchObject({ plural, ...expected });
  });
});

describe('parseFields', () => {
  test('when types and modifiers are given, then each field says what it is, with the defaults filled in', () => {
    expect(parseFields('title:string:required, body:text, n:integer:min=-2:max=9, price:number:min=0.5, status:enum(a|b-c)')).toEqual([
      { name: 'title', type: 'string', required: true, values: undefined, min: 1, max: 1000, filter: true, index: false },
      { name: 'body', type: 'text', required: false, values: undefined, min: 0, max: 100_000, filter: true, index: false },
      { name: 'n', type: 'integer', required: false, values: undefined, min: -2, max: 9, filter: true, index: false },
      { name: 'price', type: 'number', required: false, values: undefined, min: 0.5, max: undefined, filter: true, index: false },
      { name: 'status', type: 'enum', required: false, values: ['a', 'b-c'], min: undefined, max: undefined, filter: true, index: false },
    ]);
  });

  test('when index or nofilter is given, then the field gets an index, or no filters', () => {
    expect(parseFields('pages:integer:index, secret:string:nofilter').map(({ name, filter, index }) => ({ name, filter, index }))).toEqual([
      { name: 'pages', filter: true, index: true },
      { name: 'secret', filter: false, index: false },
    ]);
  });

  test('when a field is both index and nofilter, then the generator refuses it', () => {
    expect(() => parseFields('pages:integer:index:nofilter')).toThrow('index is for filters, and nofilter turns its filters off');
  });
});

describe('renameInSource', () => {
  const source = [
    "import { createArticleRepository } from './data/article.repository';",
    '// The articles app: an article per request.',
    "const notFound = () => errors.notFound('No article with this id.', 'article_not_found');",
    'const path = `/articles/${article.id}?q=${ARTICLES_COLLECTION}`;',
    'const re = /rel="([^"]+)"/; // a quote inside a regex is not a string',
    'const body = anArticle({ title: "An article" });',
  ].join('\n');

  test('when the name is one word, then code, paths and prose all take it, with the right indefinite article', () => {
    expect(renameInSource(source, namesOf('books'))).toBe(
      [
        "import { createBookRepository } from './data/book.repository';",
        '// The books app: a book per request.',
        "const notFound = () => errors.notFound('No book with this id.', 'book_not_found');",
        'const path = `/books/${book.id}?q=${BOOKS_COLLECTION}`;',
        'const re = /rel="([^"]+)"/; // a quote inside a regex is not a string',
        'const body = aBook({ title: "A book" });',
      ].join('\n'),
    );
  });

  test('when the name has two words, then identifiers are camelCase, paths kebab-case, codes snake_case and prose words', () => {
    expect(renameInSource(source, namesOf('blog-posts'))).toBe(
      [
        "import { createBlogPostRepository } from './data/blog-post.repository';",
        '// The blog posts app: a blog post per request.',
        "const notFound = () => errors.notFound('No blog post with this id.', 'blog_post_not_found');",
        'const path = `/blog-posts/${blogPost.id}?q=${BLOG_POSTS_COLLECTION}`;',
        'const re = /rel="([^"]+)"/; // a quote inside a regex is not a string',
        'const body = aBlogPost({ title: "A blog post" });',
      ].join('\n'),
    );
  });

  test('when a path names the resource, then its folder and file names follow', () => {
    expect(renamePath('test/article.list.test.ts', namesOf('blog-posts'))).toBe('test/blog-post.list.test.ts');
    expect(renamePath('src/domain/list-articles.ts', namesOf('blog-posts'))).toBe('src/domain/list-blog-posts.ts');
  });
});

describe('renderDefinition', () => {
  test('when fields and options are given, then the definition states them, leaving out what is a default', () => {
    const spec = buildSpec({
      name: 'books',
      fields: 'title:string:required:max=200,pages:integer:min=1:index,notes:text:max=100000:nofilter,status:enum(draft|done)',
      access: 'delete=admin',
      search: 'title',
      'default-sort': 'title',
    });

    const text = renderDefinition({ ...(spec as object), defaultSort: 'title' });

    expect(text).toContain("export const bookResource = defineResource({\n  name: 'books',\n  singular: 'book',");
    expect(text).toContain("    title: { type: 'string', required: true, max: 200 },");
    expect(text).toContain("    pages: { type: 'integer', min: 1, index: true },");
    expect(text).toContain("    notes: { type: 'text', filter: false },");
    expect(text).toContain("    status: { type: 'enum', values: ['draft', 'done'] },");
    expect(text).toContain("  searchable: ['title'],");
    expect(text).toContain("  access: { create: 'user', list: 'public', read: 'public', update: 'owner', delete: 'admin' },");
  });
});

describe('shared-file edits', () => {
  const c = { names: { plural: 'books', upper: 'BOOKS' }, port: 9004 };

  test('when services.json is read and written back, then it is byte for byte the same', () => {
    const text = fs.readFileSync(path.join(__dirname, '..', '..', 'services.json'), 'utf8');

    expect(registry.serialize(registry.parseRegistry(text))).toBe(text);
  });

  test('when a project reference is added and removed, then tsconfig.json is as it was', () => {
    const tsconfig = '{\n  "files": [],\n  "references": [\n    { "path": "shared" },\n    { "path": "services/articles" }\n  ]\n}\n';

    const added = edits.addToTsconfig!(tsconfig, c, 'tsconfig.json');

    expect(added).toContain('    { "path": "services/articles" },\n    { "path": "services/books" }\n  ]');
    expect(edits.removeFromTsconfig!(added, { plural: 'books' }, 'tsconfig.json')).toBe(tsconfig);
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

describe("the generator's own code", () => {
  const root = path.join(__dirname, '..', '..');
  const sources = [
    'scripts/generate.cjs',
    ...fs
      .readdirSync(path.join(root, 'scripts', 'generator'))
      .filter((f) => f.endsWith('.cjs'))
      .map((f) => `scripts/generator/${f}`),
  ];

  test('when read, then every file asks to be type-checked (// @ts-check)', () => {
    expect(sources.filter((file) => !/^(#!.*\n)?\/\/ @ts-check\n/.test(fs.readFileSync(path.join(root, file), 'utf8')))).toEqual([]);
  });

  test('when type-checked (tsc -p scripts/generator), then there is nothing to report', () => {
    const res = spawnSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'scripts/generator'], { cwd: root, encoding: 'utf8' });

    expect(res.stdout + res.stderr).toBe('');
    expect(res.status).toBe(0);
  }, 60_000);
});
