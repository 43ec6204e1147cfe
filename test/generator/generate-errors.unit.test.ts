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
    ['a field without a type', ['resource', 'novels', '--fields', 'title'], /field "title" has no type/],
    ['an empty field in the list', ['resource', 'novels', '--fields', 'title:string,,pages:integer'], /field 2 of --fields is empty/],
    [
      'an unknown type',
      ['resource', 'novels', '--fields', 'title:strin'],
      /unknown type "strin" for field "title" \(known: string, text, integer/,
    ],
    ['an unknown modifier', ['resource', 'novels', '--fields', 'title:string:unique'], /unknown modifier "unique"/],
    ['a max that is not a number', ['resource', 'novels', '--fields', 'title:string:max=lots'], /max=lots is not an integer/],
    ['min above max', ['resource', 'novels', '--fields', 'title:string:min=5:max=3'], /min \(5\) is greater than max \(3\)/],
    ['max on a boolean', ['resource', 'novels', '--fields', 'title:string,done:boolean:max=1'], /max= does not apply to type boolean/],
    ['a bad enum', ['resource', 'novels', '--fields', 'title:string,status:enum(a b|c)'], /enum values must be/],
    ['a field named twice', ['resource', 'novels', '--fields', 'title:string,title:text'], /field "title" is given twice/],
    ['a reserved field name', ['resource', 'novels', '--fields', 'title:string,createdAt:date'], /field name "createdAt" is reserved/],
    [
      'a field name that is a keyword',
      ['resource', 'novels', '--fields', 'title:string,delete:boolean'],
      /"delete" is a JavaScript reserved word/,
    ],
    ['an invalid field name', ['resource', 'novels', '--fields', 'title:string,Pages:integer'], /invalid field name "Pages"/],
    ['no --fields', ['resource', 'novels'], /--fields is required/],
    [
      'an unknown access level',
      ['resource', 'novels', '--fields', FIELDS, '--access', 'create=everyone'],
      /unknown access level "everyone" for create/,
    ],
    ['an unknown method', ['resource', 'novels', '--fields', FIELDS, '--access', 'publish=user'], /unknown method "publish"/],
    ['owner on create', ['resource', 'novels', '--fields', FIELDS, '--access', 'create=owner'], /create=owner is not allowed/],
    [
      'a public create',
      ['resource', 'novels', '--fields', FIELDS, '--access', 'create=public'],
      /create=public is not allowed \(the creator/,
    ],
    ['owner on list', ['resource', 'novels', '--fields', FIELDS, '--access', 'list=owner'], /list=owner is not allowed: use one of public/],
    ['none (no route)', ['resource', 'novels', '--fields', FIELDS, '--access', 'delete=none'], /unknown access level "none"/],
    ['the dropped --no-owner', ['resource', 'novels', '--fields', FIELDS, '--no-owner'], /unknown option --no-owner/],
    [
      'no text field for the tests to mark',
      ['resource', 'novels', '--fields', 'title:string:max=20'],
      /--search needs a string or text field that takes 40 characters/,
    ],
    [
      'search on a number',
      ['resource', 'novels', '--fields', `${FIELDS},pages:integer`, '--search', 'pages'],
      /"pages" is of type integer/,
    ],
    [
      'search on an unknown field',
      ['resource', 'novels', '--fields', FIELDS, '--search', 'isbn'],
      /--search names "isbn", which is not a field/,
    ],
    ['nothing to search', ['resource', 'novels', '--fields', 'pages:integer'], /nothing for q to search/],
    ['sort on an unknown field', ['resource', 'novels', '--fields', FIELDS, '--sort', 'rating'], /--sort names "rating"/],
    [
      'a default sort that is not sortable',
      ['resource', 'novels', '--fields', `${FIELDS},body:text`, '--default-sort', 'body'],
      /default sort "body" must be a sortable field/,
    ],
    ['a port the stack uses', ['resource', 'novels', '--fields', FIELDS, '--port', '9001'], /port 9001 is already used/],
    ['a port that is no port', ['resource', 'novels', '--fields', FIELDS, '--port', '99999'], /--port 99999 is not a port number/],
    ['an unknown option', ['resource', 'novels', '--fields', FIELDS, '--colour', 'blue'], /unknown option --colour/],
    ['an option without its value', ['resource', 'novels', '--fields'], /--fields needs a value/],
    ['an irregular plural', ['resource', 'sheep', '--fields', FIELDS], /cannot tell the singular of "sheep".*--singular/],
    ['a name the generated code uses', ['resource', 'owners', '--fields', FIELDS], /"owner" would clash/],
    ['an unknown command', ['scaffold', 'novels'], /unknown command "scaffold"/],
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

  test('when a shared file was reshaped by hand (no services list in services.json), then it stops naming the file, and nothing is written', () => {
    const file = path.join(copy, 'services.json');
    const original = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, original.replace('"services": [', '"upstreams": ['));
    const reshaped = treeHash(copy);
    try {
      const res = generate(copy, ['resource', 'novels', '--fields', FIELDS]);

      expect(res.status).toBe(1);
      expect(res.stderr).toMatch(/services\.json has no gateway and services/);
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
  // docs/generator.md's example.
  const novels = [
    'resource',
    'novels',
    '--fields',
    'title:string:required:max=200,pages:integer:min=1,published:boolean,isbn:string,status:enum(draft|published)',
    '--access',
    'create=user,list=public,read=public,update=owner,delete=admin',
    '--search',
    'title,isbn',
  ];

  test('when --dry-run is given, then it lists what it would write and writes nothing', () => {
    const res = generate(copy, [...novels, '--dry-run']);

    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^Dry run: nothing written/);
    expect(res.stdout).toContain('create  services/novels/src/http/novel.routes.ts');
    expect(res.stdout).toContain('create  services/novels/test/novel.create.test.ts');
    const edited = res.stdout.split('\n').filter((line) => line.startsWith('edit '));
    expect(edited.map((line) => line.slice('edit    '.length)).sort()).toEqual(
      [
        'deploy/swarm/stack.yml',
        'docker-compose.yml',
        'node_modules/.package-lock.json',
        'package-lock.json',
        'services.json',
        'tsconfig.json',
      ].sort(),
    );
    expect(treeHash(copy)).toBe(pristine);
  });

  test('when a resource is generated and removed again, then the tree is exactly as before', () => {
    const created = generate(copy, novels);
    expect(created.status).toBe(0);
    expect(fs.existsSync(path.join(copy, 'services', 'novels', 'src', 'start.ts'))).toBe(true);
    expect(fs.readlinkSync(path.join(copy, 'node_modules', '@restgate', 'novels'))).toBe('../../services/novels');
    expect(treeHash(copy)).not.toBe(pristine);

    const dryRemoval = generate(copy, ['remove', 'novels', '--dry-run']);
    expect(dryRemoval.stdout).toContain('remove  services/novels/');
    const removed = generate(copy, ['remove', 'novels']);

    expect(removed.status).toBe(0);
    expect(removed.stdout).toContain('unlink  node_modules/@restgate/novels');
    expect(treeHash(copy)).toBe(pristine);
  });

  test('when the same name is generated twice, then the second run stops and the first stays whole', () => {
    expect(generate(copy, novels).status).toBe(0);
    const once = treeHash(copy);

    const again = generate(copy, novels);

    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/"novels" already exists/);
    expect(treeHash(copy)).toBe(once);
    expect(generate(copy, ['remove', 'novels']).status).toBe(0);
    expect(treeHash(copy)).toBe(pristine);
  });
});

describe('generate resource: a rule that does not compile', () => {
  let ruled: string;
  beforeAll(() => {
    ruled = copyRepo();
    // Rules are checked with the built shared library, as `npm run generate` finds it after a build.
    fs.cpSync(path.resolve(__dirname, '..', '..', 'shared', 'dist'), path.join(ruled, 'shared', 'dist'), { recursive: true });
  });
  afterAll(() => {
    removeCopy(ruled);
  });

  test.each([
    [
      'an unknown field',
      ['--rule', 'list=titel = "x"'],
      /novels rule list "titel = "x"": unknown field titel \(fields: title, user\.id, createdAt, updatedAt\) \(at position 1\)/,
    ],
    [
      'a comparison across types',
      ['--rule', 'read=title = 5'],
      /novels rule read "title = 5": compares a string with a number \(at position 1\)/,
    ],
    [
      'a field rule on a field that is not there',
      ['--field-rule', 'secret:read=user.id = @auth.id'],
      /--field-rule names "secret", which is not a field/,
    ],
  ])('when %s, then the message the service would stop with, and nothing written', (_what, args, message) => {
    const before = treeHash(ruled);
    const res = generate(ruled, ['resource', 'novels', '--fields', FIELDS, ...args]);

    expect(res.stderr).toMatch(message);
    expect(res.stderr).toMatch(/Nothing was written/);
    expect(res.status).toBe(1);
    expect(treeHash(ruled)).toBe(before);
  });
});
