/**
 * `npm run generate` refuses what it cannot do well: a clear message, exit code 1, and the tree
 * exactly as it was (hashed before and after). Runs the real command in a copy of the repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { copyRepo, generate, removeCopy, treeHash } from './support/repo-copy';

const FIELDS = 'title:string:required';

let copy: string;
let pristine: string;
beforeAll(() => {
  copy = copyRepo();
  pristine = treeHash(copy);
});
afterAll(() => {
  removeCopy(copy);
});

function expectRefused(args: string[], message: RegExp): void {
  const res = generate(copy, args);

  expect(res.stderr).toMatch(message);
  expect(res.stderr).toMatch(/Nothing was written/);
  expect(res.status).toBe(1);
  expect(treeHash(copy)).toBe(pristine);
}

describe('generate resource: refused requests change nothing', () => {
  test.each([
    [
      'an existing resource',
      ['resource', 'articles', '--fields', FIELDS],
      /"articles" already exists \(services\/articles\/.*remove it first/,
    ],
    ['a field without a type', ['resource', 'books', '--fields', 'title'], /field "title" has no type/],
    ['an empty field in the list', ['resource', 'books', '--fields', 'title:string,,pages:integer'], /field 2 of --fields is empty/],
    [
      'an unknown type',
      ['resource', 'books', '--fields', 'title:strin'],
      /unknown type "strin" for field "title" \(known: string, text, integer/,
    ],
    ['an unknown modifier', ['resource', 'books', '--fields', 'title:string:unique'], /unknown modifier "unique"/],
    ['a max that is not a number', ['resource', 'books', '--fields', 'title:string:max=lots'], /max=lots is not an integer/],
    ['min above max', ['resource', 'books', '--fields', 'title:string:min=5:max=3'], /min \(5\) is greater than max \(3\)/],
    ['max on a boolean', ['resource', 'books', '--fields', 'title:string,done:boolean:max=1'], /max= does not apply to type boolean/],
    ['a bad enum', ['resource', 'books', '--fields', 'title:string,status:enum(a b|c)'], /enum values must be/],
    ['a field named twice', ['resource', 'books', '--fields', 'title:string,title:text'], /field "title" is given twice/],
    ['a reserved field name', ['resource', 'books', '--fields', 'title:string,createdAt:date'], /field name "createdAt" is reserved/],
    [
      'a field name that is a keyword',
      ['resource', 'books', '--fields', 'title:string,delete:boolean'],
      /"delete" is a JavaScript reserved word/,
    ],
    ['an invalid field name', ['resource', 'books', '--fields', 'title:string,Pages:integer'], /invalid field name "Pages"/],
    ['no --fields', ['resource', 'books'], /--fields is required/],
    [
      'an unknown access level',
      ['resource', 'books', '--fields', FIELDS, '--access', 'create=everyone'],
      /unknown access level "everyone" for create/,
    ],
    ['an unknown method', ['resource', 'books', '--fields', FIELDS, '--access', 'publish=user'], /unknown method "publish"/],
    ['owner on create', ['resource', 'books', '--fields', FIELDS, '--access', 'create=owner'], /create=owner is not a level/],
    [
      'every method none',
      ['resource', 'books', '--fields', FIELDS, '--access', 'create=none,list=none,read=none,update=none,delete=none'],
      /no method/,
    ],
    [
      'owner with no user creating',
      ['resource', 'books', '--fields', FIELDS, '--access', 'create=public,update=owner'],
      /update=owner, delete=owner needs an owner.*create=user/,
    ],
    [
      'owner with --no-owner',
      ['resource', 'books', '--fields', FIELDS, '--no-owner'],
      /--no-owner, but update=owner, delete=owner needs the owner/,
    ],
    ['search on a number', ['resource', 'books', '--fields', `${FIELDS},pages:integer`, '--search', 'pages'], /"pages" is of type integer/],
    [
      'search on an unknown field',
      ['resource', 'books', '--fields', FIELDS, '--search', 'isbn'],
      /--search names "isbn", which is not a field/,
    ],
    ['nothing to search', ['resource', 'books', '--fields', 'pages:integer'], /nothing for q to search/],
    ['sort on an unknown field', ['resource', 'books', '--fields', FIELDS, '--sort', 'rating'], /--sort names "rating"/],
    [
      'a default sort that is not sortable',
      ['resource', 'books', '--fields', `${FIELDS},body:text`, '--default-sort', 'body'],
      /default sort "body" must be a sortable field/,
    ],
    ['a port the stack uses', ['resource', 'books', '--fields', FIELDS, '--port', '9001'], /port 9001 is already used/],
    ['a port that is no port', ['resource', 'books', '--fields', FIELDS, '--port', '99999'], /--port 99999 is not a port number/],
    ['an unknown option', ['resource', 'books', '--fields', FIELDS, '--colour', 'blue'], /unknown option --colour/],
    ['an option without its value', ['resource', 'books', '--fields'], /--fields needs a value/],
    ['an irregular plural', ['resource', 'sheep', '--fields', FIELDS], /cannot tell the singular of "sheep".*--singular/],
    ['a name the generated code uses', ['resource', 'owners', '--fields', FIELDS], /"owner" would clash/],
    ['an unknown command', ['scaffold', 'books'], /unknown command "scaffold"/],
  ])('when the request has %s, then it stops with a message', (_what, args, message) => {
    expectRefused(args, message);
  });

  test.each(['users', 'auth', 'gateway', 'shared', 'health', 'docs', 'openapi.json', 'metrics', 'identity', 'mailer'])(
    'when the name is the reserved "%s", then it stops with a message',
    (name) => {
      expectRefused(['resource', name, '--fields', FIELDS], new RegExp(`"${name.replace('.', '\\.')}" is a reserved name`));
    },
  );

  test.each(['Books', '1books', 'book_s', 'book--s', '-books', 'books-', 'bö0ks', 'a'.repeat(31)])(
    'when the name is "%s" (not a kebab-case identifier), then it stops with a message',
    (name) => {
      expectRefused(['resource', name, '--fields', FIELDS], /invalid resource name/);
    },
  );

  test('when a shared file was reshaped by hand (no SERVICES list), then it stops naming the file, and nothing is written', () => {
    const file = path.join(copy, 'scripts', 'lib', 'stack.cjs');
    const original = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, original.replace('const SERVICES = [', 'const UPSTREAM_SERVICES = ['));
    const reshaped = treeHash(copy);
    try {
      const res = generate(copy, ['resource', 'books', '--fields', FIELDS]);

      expect(res.status).toBe(1);
      expect(res.stderr).toMatch(/cannot find the SERVICES array in scripts\/lib\/stack\.cjs/);
      expect(treeHash(copy)).toBe(reshaped);
    } finally {
      fs.writeFileSync(file, original);
    }
  });
});

describe('generate remove: refused requests change nothing', () => {
  test.each([
    ['a service of the stack', 'identity', /"identity" is part of the stack/],
    ['the gateway', 'gateway', /"gateway" is part of the stack/],
    ['an unknown resource', 'novels', /nothing to remove: no resource named "novels"/],
    ['no name', '', /invalid resource name/],
  ])('when asked to remove %s, then it stops with a message', (_what, name, message) => {
    expectRefused(name ? ['remove', name] : ['remove'], message);
  });
});

describe('generate --dry-run, then for real, then remove', () => {
  // The README's example.
  const books = [
    'resource',
    'books',
    '--fields',
    'title:string:required:max=200,pages:integer:min=1,published:boolean,isbn:string,status:enum(draft|published)',
    '--access',
    'create=user,list=public,read=public,update=owner,delete=admin',
    '--search',
    'title,isbn',
  ];

  test('when --dry-run is given, then it lists what it would write and writes nothing', () => {
    const res = generate(copy, [...books, '--dry-run']);

    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^Dry run: nothing written/);
    expect(res.stdout).toContain('create  services/books/src/http/book.routes.ts');
    expect(res.stdout).toContain('create  services/books/test/book.create.test.ts');
    const shared = [
      'gateway/src/policy.ts',
      'gateway/src/config.ts',
      'scripts/lib/stack.cjs',
      'docker-compose.yml',
      'tsconfig.json',
      'package-lock.json',
      'README.md',
    ];
    for (const file of shared) {
      expect(res.stdout).toContain(`edit    ${file}`);
    }
    expect(treeHash(copy)).toBe(pristine);
  });

  test('when a resource is generated and removed again, then the tree is exactly as before', () => {
    const created = generate(copy, books);
    expect(created.status).toBe(0);
    expect(fs.existsSync(path.join(copy, 'services', 'books', 'src', 'start.ts'))).toBe(true);
    expect(fs.readlinkSync(path.join(copy, 'node_modules', '@restgate', 'books'))).toBe('../../services/books');
    expect(treeHash(copy)).not.toBe(pristine);

    const dryRemoval = generate(copy, ['remove', 'books', '--dry-run']);
    expect(dryRemoval.stdout).toContain('remove  services/books/');
    const removed = generate(copy, ['remove', 'books']);

    expect(removed.status).toBe(0);
    expect(removed.stdout).toContain('unlink  node_modules/@restgate/books');
    expect(treeHash(copy)).toBe(pristine);
  });

  test('when the same name is generated twice, then the second run stops and the first stays whole', () => {
    expect(generate(copy, books).status).toBe(0);
    const once = treeHash(copy);

    const again = generate(copy, books);

    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/"books" already exists/);
    expect(treeHash(copy)).toBe(once);
    expect(generate(copy, ['remove', 'books']).status).toBe(0);
    expect(treeHash(copy)).toBe(pristine);
  });
});
