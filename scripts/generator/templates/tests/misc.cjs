'use strict';
// test/<name>.openapi.test.ts, <name>.views.unit.test.ts, service.test.ts

const { lines } = require('../context.cjs');
const { importsFor, testFile } = require('./support.cjs');
const { bodyValue, markerValue } = require('./values.cjs');

/** A principal that passes `level` on a record `owner` created (TS source); `owner` is a user, or an admin when only admins create. */
function passing(level) {
  return { public: '', user: 'owner', owner: 'owner', admin: 'anAdmin()', master: 'MASTER' }[level];
}

/** A principal that `level` refuses, and the status it gets; null for public. */
function failing(level) {
  return { public: null, user: ['undefined', 401], owner: ['aUser()', 403], admin: ['aUser()', 403], master: ['aUser()', 403] }[level];
}

function openapiTest(c) {
  const { n } = c;
  const v = n.camel;
  const paths = [];
  const collection = [c.has('create') && 'post', c.has('list') && 'get'].filter(Boolean).sort();
  const item = [c.has('read') && 'get', c.has('update') && 'put', c.has('update') && 'patch', c.has('delete') && 'delete']
    .filter(Boolean)
    .sort();
  if (collection.length) paths.push(`/${n.plural}`);
  if (item.length) paths.push(`/${n.plural}/{id}`);
  const arg = (level) => (passing(level) ? `, ${passing(level)}` : '');
  const createArg = c.level('create') === 'admin' ? ', owner' : arg(c.level('create'));

  // The calls, in order, with the status each must get.
  const calls = [];
  const statuses = [];
  const add = (method, url, expr, status) => {
    calls.push(`      ['${method}', ${url}, ${expr}],`);
    statuses.push(status);
  };
  if (c.has('create')) {
    add('post', `'/${n.plural}'`, 'created', 201);
  }
  if (c.has('list')) {
    const q = `\`/${n.plural}?q=\${marker}\``;
    add('get', q, `await call(svc.app, 'get', ${q}${arg(c.level('list'))})`, 200);
    const f = `\`/${n.plural}?q=\${marker}&fields=${c.markerField}${c.owner ? ',user' : ''}\``;
    add('get', f, `await call(svc.app, 'get', ${f}${arg(c.level('list'))})`, 200);
    add('get', `'/${n.plural}?limit=101'`, `await call(svc.app, 'get', '/${n.plural}?limit=101'${arg(c.level('list'))})`, 400);
    const refused = failing(c.level('list'));
    if (refused) add('get', `'/${n.plural}'`, `await call(svc.app, 'get', '/${n.plural}', ${refused[0]})`, refused[1]);
  }
  if (c.has('read')) add('get', 'path', `await call(svc.app, 'get', path${arg(c.level('read'))})`, 200);
  if (c.has('update')) {
    add(
      'patch',
      'path',
      `await call(svc.app, 'patch', path${arg(c.level('update'))}).send({ ${c.markerField}: ${bodyValue(c, c.marker)} })`,
      200,
    );
    const refused = failing(c.level('update'));
    if (refused)
      add(
        'put',
        'path',
        `await call(svc.app, 'put', path, ${refused[0]}).send({ ${c.markerField}: ${bodyValue(c, c.marker)} })`,
        refused[1],
      );
  }
  if (c.has('create')) {
    add('post', `'/${n.plural}'`, `await call(svc.app, 'post', '/${n.plural}'${createArg}).send({ ${c.markerField}: 5 })`, 400);
    const refused = failing(c.level('create'));
    if (refused)
      add('post', `'/${n.plural}'`, `await call(svc.app, 'post', '/${n.plural}', ${refused[0]}).send(${n.builder}())`, refused[1]);
  }
  if (c.has('delete')) add('delete', 'path', `await call(svc.app, 'delete', path${arg(c.level('delete'))})`, 204);
  if (c.has('read')) add('get', 'path', `await call(svc.app, 'get', path${arg(c.level('read'))})`, c.has('delete') ? 404 : 200);

  // The record the calls work on: created through the API when it can be, else stored directly.
  const given = `given${n.pascal}(svc.${n.camelPlural}, { ${c.markerField}: ${markerValue(c.marker, 'marker')}${c.owner ? ', userId: owner.id' : ''} })`;
  const arrange = c.has('create')
    ? [
        `    const created = await call(svc.app, 'post', '/${n.plural}'${createArg}).send(${n.builder}({ ${c.markerField}: ${markerValue(c.marker, 'marker')} }));`,
        c.byId && '    const path = `/' + n.plural + '/${created.body.id}`;',
      ]
    : [
        c.byId ? `    const ${v} = await ${given};` : `    await ${given};`,
        c.byId && `    const path = \`/${n.plural}/\${${v}._id.toHexString()}\`;`,
      ];

  const body = lines(
    `describe('GET /openapi.json (the ${n.humanPlural} part)', () => {`,
    '  let svc: TestService;',
    '  let doc: OpenApiDocument;',
    '  beforeAll(async () => {',
    `    svc = await start${n.pascalPlural}();`,
    "    doc = (await request(svc.app).get('/openapi.json').expect(200)).body as OpenApiDocument;",
    '  });',
    '  afterAll(async () => {',
    '    await svc.stop();',
    '  });',
    '',
    "  test('when served, then it is valid OpenAPI 3.1 with every route of the table at its default level', () => {",
    '    expect(validateOpenApiDocument(doc)).toEqual({ valid: true, errors: [] });',
    `    expect(doc.info.title).toBe('${n.plural}');`,
    `    expect(Object.keys(doc.paths).sort()).toEqual([${paths.map((p) => `'${p}'`).join(', ')}]);`,
    collection.length > 0 &&
      `    expect(Object.keys(doc.paths['/${n.plural}']!).sort()).toEqual([${collection.map((m) => `'${m}'`).join(', ')}]);`,
    item.length > 0 &&
      `    expect(Object.keys(doc.paths['/${n.plural}/{id}']!).sort()).toEqual([${item.map((m) => `'${m}'`).join(', ')}]);`,
    '  });',
    '',
    "  test('when the API answers, then each real response matches what the document says', async () => {",
    [...arrange, ...calls].some((l) => l && /\bowner\b/.test(l)) &&
      `    const owner = ${c.level('create') === 'admin' ? 'anAdmin()' : 'aUser()'};`,
    '    const marker = aMarker();',
    ...arrange.filter(Boolean),
    '    const responses = [',
    ...calls,
    '    ] as const;',
    '',
    '    const problems = responses.flatMap(',
    "      ([method, url, res]) => responseMatches(doc, method, url, res.status, res.headers['content-type'], res.body).problems,",
    '    );',
    '',
    `    expect(responses.map(([, , res]) => res.status)).toEqual([${statuses.join(', ')}]);`,
    '    expect(problems).toEqual([]);',
    '  });',
    '});',
    '',
  );
  return testFile(c, body, [
    { from: '@restgate/shared', types: ['OpenApiDocument'], typeOnly: true },
    { from: '@restgate/shared/testing', values: ['responseMatches', 'validateOpenApiDocument'] },
  ]).replace(/^/, "import request from 'supertest';\n");
}

function viewsUnitTest(c) {
  const { n } = c;
  const v = n.camel;
  const sample = (f, i) => {
    switch (f.type) {
      case 'integer':
        return String(Math.min(Math.max(3, f.min ?? 3), f.max ?? 3));
      case 'number':
        return String(Math.min(Math.max(2.5, f.min ?? 2.5), f.max ?? 2.5));
      case 'boolean':
        return 'false';
      case 'date':
        return "new Date('2026-03-04T05:06:07.008Z')";
      case 'email':
        return "'ada@example.com'";
      case 'url':
        return "'https://example.com/page'";
      case 'enum':
        return `'${f.values[f.values.length - 1]}'`;
      default:
        return `'${`${f.name} ${i}`.slice(0, Math.max(1, f.max))}'`;
    }
  };
  const viewValue = (f, i) => (f.type === 'date' ? "'2026-03-04T05:06:07.008Z'" : sample(f, i));
  const optional = c.optionalFields;
  const body = lines(
    `const ${v}: ${n.pascal} = {`,
    "  id: '65f0c0ffee00000000000001',",
    ...c.fields.map((f, i) => `  ${f.name}: ${sample(f, i)},`),
    c.owner && "  userId: '65f0c0ffee00000000000002',",
    "  createdAt: new Date('2026-01-02T03:04:05.006Z'),",
    "  updatedAt: new Date('2026-02-03T04:05:06.007Z'),",
    '};',
    '',
    `describe('${v}View', () => {`,
    `  test('when given ${n.a}, then the API view: id first, ${c.owner ? 'owner as user.id, ' : ''}ISO timestamps, nothing else', () => {`,
    `    const view = ${v}View(${v});`,
    '',
    '    expect(view).toEqual({',
    "      id: '65f0c0ffee00000000000001',",
    ...c.fields.map((f, i) => `      ${f.name}: ${viewValue(f, i)},`),
    c.owner && "      user: { id: '65f0c0ffee00000000000002' },",
    "      createdAt: '2026-01-02T03:04:05.006Z',",
    "      updatedAt: '2026-02-03T04:05:06.007Z',",
    '    });',
    "    expect(Object.keys(view)[0]).toBe('id');",
    c.owner && "    expect(view).not.toHaveProperty('userId');",
    '  });',
    optional.length > 0 && '',
    optional.length > 0 &&
      lines(
        "  test('when an optional field is not set, then the view has it as null', () => {",
        `    const { ${optional.map((f) => `${f.name}: _${f.name}`).join(', ')}, ...bare } = ${v};`,
        '',
        `    expect(${v}View(bare)).toMatchObject({ ${optional.map((f) => `${f.name}: null`).join(', ')} });`,
        '  });',
      ),
    '',
    "  test('when fields are selected, then only id and those fields, from a record loaded with just them', () => {",
    `    expect(${v}View({ id: ${v}.id, ${c.markerField}: ${v}.${c.markerField} }, ['${c.markerField}'])).toEqual({ id: ${v}.id, ${c.markerField}: ${v}.${c.markerField} });`,
    `    expect(${v}View({ id: ${v}.id }, ['id'])).toEqual({ id: ${v}.id });`,
    '  });',
    '',
    "  test('when fields is undefined, then every field', () => {",
    `    expect(Object.keys(${v}View(${v}, undefined))).toEqual(['id', ${c.apiFields.map((f) => `'${f}'`).join(', ')}]);`,
    '  });',
    '',
    "  test('the view renders exactly the fields the resource descriptor declares', () => {",
    `    expect(Object.keys(${v}View(${v})).slice(1).sort()).toEqual(Object.keys(${v}Resource.fields).sort());`,
    '  });',
    '});',
    '',
  );
  return `import { ${v}View } from '../src/http/${n.singular}.views';
import { ${v}Resource, type ${n.pascal} } from '../src/domain/${n.singular}.model';

${body}`;
}

/** `, <a principal that passes level>` (nothing for public). */
const principalFor = (level) => ({ public: '', user: ', aUser()', owner: ', aUser()', admin: ', anAdmin()', master: ', MASTER' })[level];

function serviceTest(c) {
  const { n } = c;
  const collectionMethods = [c.has('create') && 'POST', c.has('list') && 'GET'].filter(Boolean);
  const itemMethods = [c.has('read') && 'GET', c.has('update') && 'PUT', c.has('update') && 'PATCH', c.has('delete') && 'DELETE'].filter(
    Boolean,
  );
  const allowHeader = (methods) => (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', ');
  const onCollection = collectionMethods.length > 0;
  const wrongPath = onCollection ? `'/${n.plural}'` : '`/' + n.plural + '/${new ObjectId().toHexString()}`';
  const wrongMethod = onCollection ? 'put' : 'post';
  const allow = allowHeader(onCollection ? collectionMethods : itemMethods);
  const indexKeys = [
    `{ ${c.defaultSort.replace(/^-/, '').replace(/^user$/, 'userId')}: ${c.defaultSort.startsWith('-') ? -1 : 1}, _id: ${c.defaultSort.startsWith('-') ? -1 : 1} }`,
    ...(c.owner ? ['{ userId: 1, createdAt: -1 }'] : []),
  ];
  // An override to check: one route's level changed, so the service enforces the operator's table, not its default.
  const probe = c.has('read')
    ? { method: 'get', route: `/${n.plural}/:id`, level: c.level('read') }
    : c.has('list')
      ? { method: 'get', route: `/${n.plural}`, level: c.level('list') }
      : c.has('delete')
        ? { method: 'delete', route: `/${n.plural}/:id`, level: c.level('delete') }
        : c.has('update')
          ? { method: 'patch', route: `/${n.plural}/:id`, level: c.level('update') }
          : { method: 'post', route: `/${n.plural}`, level: c.level('create') };
  // Admin passes every check in the service (an owner's included); a route that is admin-only opens to users instead.
  const target = probe.level === 'admin' ? 'user' : 'admin';
  const refusedBy = target === 'admin' ? 'aUser()' : 'MASTER';
  const passes = target === 'admin' ? 'anAdmin()' : 'aUser()';
  const policy = [`${probe.method.toUpperCase()} ${probe.route}=${target}`];
  const openCreate = c.owner && c.has('create') && probe.method !== 'post';
  if (openCreate) policy.push(`POST /${n.plural}=public`);
  const probePath = probe.route.endsWith(':id') ? `\`/${n.plural}/\${${n.camel}._id.toHexString()}\`` : `'/${n.plural}'`;
  const downCall = c.has('list')
    ? `call(app, 'get', '/${n.plural}'${principalFor(c.level('list'))})`
    : c.has('read')
      ? `call(app, 'get', \`/${n.plural}/\${new ObjectId().toHexString()}\`${principalFor(c.level('read'))})`
      : null;

  const body = lines(
    `describe('${n.humanPlural} service', () => {`,
    "  describe('with its database up', () => {",
    '    let svc: TestService;',
    '    beforeAll(async () => {',
    `      svc = await start${n.pascalPlural}();`,
    '    });',
    '    afterAll(async () => {',
    '      await svc.stop();',
    '    });',
    '',
    "    test('when /health and /ready are asked, then 200, and ready names mongodb as up', async () => {",
    "      const [health, ready] = await Promise.all([request(svc.app).get('/health'), request(svc.app).get('/ready')]);",
    '',
    '      expect(health.status).toBe(200);',
    '      expect(ready.status).toBe(200);',
    "      expect(ready.body).toEqual({ status: 'ready', checks: { mongodb: 'up' } });",
    '    });',
    '',
    `    test('when the indexes are listed, then the default sort${c.owner ? ' and the owner lookup are' : ' is'} indexed', async () => {`,
    `      const keys = (await svc.${n.camelPlural}.indexes()).map((index) => index.key);`,
    '',
    `      expect(keys).toEqual(expect.arrayContaining([${indexKeys.join(', ')}]));`,
    '    });',
    '',
    "    test('when the indexes are ensured again (a restart on existing data), then it succeeds and changes nothing', async () => {",
    `      const before = await svc.${n.camelPlural}.indexes();`,
    '',
    `      await create${n.pascal}Repository(svc.${n.camelPlural}.db).ensureIndexes();`,
    '',
    `      expect(await svc.${n.camelPlural}.indexes()).toEqual(before);`,
    '    });',
    '',
    "    test('when a method the path does not have is used, then 405 with Allow', async () => {",
    `      const res = await call(svc.app, '${wrongMethod}', ${wrongPath}, aUser()).send(${n.builder}());`,
    '',
    '      expect(res.status).toBe(405);',
    `      expect(res.headers.allow).toBe('${allow}');`,
    '    });',
    '  });',
    '',
    "  describe('with ROUTE_POLICY overrides', () => {",
    '    let svc: TestService;',
    '    beforeAll(async () => {',
    `      svc = await start${n.pascalPlural}({ ROUTE_POLICY: '${policy.join('; ')}' });`,
    '    });',
    '    afterAll(async () => {',
    '      await svc.stop();',
    '    });',
    '',
    `    test('when ${probe.method.toUpperCase()} ${probe.route} is set to ${target}, then ${target === 'admin' ? 'a user gets 403 and an admin' : 'the master key gets 403 and a user'} passes', async () => {`,
    probe.route.endsWith(':id') && `      const ${n.camel} = await given${n.pascal}(svc.${n.camelPlural});`,
    '',
    `      const refused = await call(svc.app, '${probe.method}', ${probePath}, ${refusedBy})${probe.method === 'post' || probe.method === 'patch' ? `.send(${n.builder}())` : ''};`,
    `      const passed = await call(svc.app, '${probe.method}', ${probePath}, ${passes})${probe.method === 'post' || probe.method === 'patch' ? `.send(${n.builder}())` : ''};`,
    '',
    '      expect(refused.status).toBe(403);',
    "      expect(refused.body.code).toBe('forbidden');",
    '      expect([401, 403]).not.toContain(passed.status);',
    '    });',
    openCreate && '',
    openCreate &&
      lines(
        `    test('when POST /${n.plural} is opened to public, then an anonymous caller still cannot create (${n.a} needs an owner): 401, nothing written', async () => {`,
        '      const marker = aMarker();',
        '',
        `      const anonymous = await call(svc.app, 'post', '/${n.plural}').send(${n.builder}({ ${c.markerField}: ${markerValue(c.marker, 'marker')} }));`,
        `      const master = await call(svc.app, 'post', '/${n.plural}', MASTER).send(${n.builder}({ ${c.markerField}: ${markerValue(c.marker, 'marker')} }));`,
        '',
        '      expect(anonymous.status).toBe(401);',
        '      expect(master.status).toBe(403);',
        `      expect(await svc.${n.camelPlural}.countDocuments({ ${c.markerField}: ${markerValue(c.marker, 'marker')} })).toBe(0);`,
        '    });',
      ),
    '  });',
    '',
    "  describe('with its database down', () => {",
    '    // Nothing listens on port 9 (discard) on loopback: the driver fails server selection fast.',
    `    const mongo = createMongo('mongodb://127.0.0.1:9', uniqueDbName('${n.plural}'), createLogger({ name: '${n.plural}-test', level: 'silent' }));`,
    '    const app = createApp({',
    "      config: { PRINCIPAL_SECRET: TEST_PRINCIPAL_SECRET, BODY_LIMIT: '100kb', ROUTE_POLICY: '' },",
    `      logger: createLogger({ name: '${n.plural}-test', level: 'silent' }),`,
    `      ${n.camelPlural}: create${n.pascal}Repository(mongo.db),`,
    '      readiness: [mongo.readiness],',
    '    });',
    '    afterAll(async () => {',
    '      await mongo.close();',
    '    });',
    '',
    "    test('when /ready is asked, then 503 naming mongodb as down', async () => {",
    "      const res = await request(app).get('/ready');",
    '',
    '      expect(res.status).toBe(503);',
    "      expect(res.body).toEqual({ status: 'unready', checks: { mongodb: 'down' } });",
    '    });',
    downCall && '',
    downCall &&
      lines(
        `    test('when ${c.has('list') ? 'a listing' : `${n.a}`} is asked, then 503 problem+json without driver details', async () => {`,
        `      const res = await ${downCall};`,
        '',
        '      expect(res.status).toBe(503);',
        "      expect(res.body).toMatchObject({ code: 'service_unavailable', status: 503 });",
        '      expect(JSON.stringify(res.body)).not.toMatch(/127\\.0\\.0\\.1|Mongo|ECONNREFUSED/);',
        '    });',
      ),
    '  });',
    '});',
    '',
  );
  const head = [
    "import request from 'supertest';",
    importsFor(body, [
      { from: 'mongodb', values: ['ObjectId'] },
      { from: '@restgate/shared', values: ['createLogger', 'createMongo'] },
      { from: '@restgate/shared/testing', values: ['TEST_PRINCIPAL_SECRET', 'uniqueDbName'] },
      { from: '../src/app', values: ['createApp'] },
      { from: `../src/data/${n.singular}.repository`, values: [`create${n.pascal}Repository`] },
    ]),
  ].join('\n');
  return `${head}\n${testFile(c, body)}`;
}

module.exports = { openapiTest, viewsUnitTest, serviceTest };
