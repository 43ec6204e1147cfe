'use strict';
// test/<name>.get.test.ts, <name>.update.test.ts, <name>.delete.test.ts

const { lines } = require('../context.cjs');
const { allowed, refusedRows, testFile } = require('./support.cjs');
const { invalidCases, storedOfBody } = require('./values.cjs');

/** How a test arranges the record and who acts on it, by level. */
function actors(c, level) {
  const who = allowed(level);
  const ownerOverride = c.owner && level === 'owner' ? ', { userId: owner.id }' : '';
  return {
    who,
    decl: who.decl ? `    ${who.decl}\n` : '',
    arg: who.arg,
    given: (indent = '    ') => `${indent}const ${c.n.camel} = await given${c.n.pascal}(svc.${c.n.camelPlural}${ownerOverride});`,
  };
}

const idOf = (c) => `${c.n.camel}._id.toHexString()`;

function getTest(c) {
  const { n } = c;
  const level = c.level('read');
  const a = actors(c, level);
  const v = n.camel;
  const body = lines(
    `describe('GET /${n.plural}/:id', () => {`,
    '  let svc: TestService;',
    '  beforeAll(async () => {',
    `    svc = await start${n.pascalPlural}();`,
    '  });',
    '  afterAll(async () => {',
    '    await svc.stop();',
    '  });',
    '',
    `  test('when ${a.who.desc} asks for an existing ${n.human}, then 200 with its view', async () => {`,
    a.decl + a.given(),
    '',
    `    const res = await call(svc.app, 'get', \`/${n.plural}/\${${idOf(c)}}\`${a.arg ? `, ${a.arg}` : ''});`,
    '',
    '    expect(res.status).toBe(200);',
    `    expect(res.body).toEqual(viewOf(${v}));`,
    '  });',
    level === 'public' && '',
    level === 'public' &&
      lines(
        `  test('when a user (${c.owner ? 'not the owner' : 'any user'}) asks, then 200 with the same view', async () => {`,
        a.given(),
        `    const path = \`/${n.plural}/\${${idOf(c)}}\`;`,
        '',
        "    const res = await call(svc.app, 'get', path, aUser());",
        '',
        '    expect(res.status).toBe(200);',
        `    expect(res.body).toEqual(viewOf(${v}));`,
        '  });',
      ),
    level === 'owner' && '',
    level === 'owner' &&
      lines(
        `  test('when an admin asks for another user’s ${n.human}, then 200 with its view', async () => {`,
        `    const ${v} = await given${n.pascal}(svc.${n.camelPlural});`,
        '',
        `    const res = await call(svc.app, 'get', \`/${n.plural}/\${${idOf(c)}}\`, anAdmin());`,
        '',
        '    expect(res.status).toBe(200);',
        `    expect(res.body).toEqual(viewOf(${v}));`,
        '  });',
      ),
    '',
    '  test.each([',
    "    { case: 'unknown', id: () => new ObjectId().toHexString() },",
    "    { case: 'malformed', id: () => 'not-an-id' },",
    "    { case: 'almost an id (23 hex)', id: () => new ObjectId().toHexString().slice(1) },",
    "    { case: 'an operator-looking string', id: () => '{\"$ne\":null}' },",
    `  ])('when the id is $case, then 404 ${n.snake}_not_found as problem+json', async ({ id }) => {`,
    a.decl,
    `    const res = await call(svc.app, 'get', \`/${n.plural}/\${encodeURIComponent(id())}\`${a.arg ? `, ${a.arg}` : ''});`,
    '',
    '    expect(res.status).toBe(404);',
    "    expect(res.headers['content-type']).toMatch(/^application\\/problem\\+json/);",
    `    expect(res.body).toMatchObject({ status: 404, code: '${n.snake}_not_found' });`,
    '  });',
    level !== 'public' && '',
    level !== 'public' &&
      lines(
        "  describe('refused', () => {",
        '    test.each([',
        refusedRows(level),
        "    ])('when $case, then $status $code', async ({ principal, status, code }) => {",
        `      const ${v} = await given${n.pascal}(svc.${n.camelPlural});`,
        '',
        `      const res = await call(svc.app, 'get', \`/${n.plural}/\${${idOf(c)}}\`, principal);`,
        '',
        '      expect(res.status).toBe(status);',
        '      expect(res.body.code).toBe(code);',
        "      if (status === 401) expect(res.headers['www-authenticate']).toBe('Bearer realm=\"restgate\"');",
        '    });',
        '  });',
      ),
    '});',
    '',
  );
  return testFile(c, body, [{ from: 'mongodb', values: ['ObjectId'] }]);
}

function updateTest(c) {
  const { n } = c;
  const level = c.level('update');
  const a = actors(c, level);
  const v = n.camel;
  const first = c.fields[0];
  const rest = c.fields.slice(1);
  const invalid = c.fields.flatMap((f) => invalidCases(f, { forCreate: false }).map((x) => ({ ...x, field: f })));
  const viewFields = c.fields.map((f) => `      ${f.name}: changes.${f.name},`).join('\n');
  const storedFields = c.fields.map((f) => `${f.name}: ${storedOfBody(f, 'changes')}`).join(', ');
  const argOf = (indent = '') => (a.arg ? `, ${a.arg}` : indent);
  const body = lines(
    '// PUT and PATCH behave the same: both are partial updates: omitted fields stay as they are.',
    `describe.each(['put', 'patch'] as const)('%s /${n.plural}/:id', (method) => {`,
    '  let svc: TestService;',
    '  beforeAll(async () => {',
    `    svc = await start${n.pascalPlural}();`,
    '  });',
    '  afterAll(async () => {',
    '    await svc.stop();',
    '  });',
    '',
    `  const update = (${v}: ${n.pascal}Doc | string, principal?: Parameters<typeof call>[3]) =>`,
    `    call(svc.app, method, \`/${n.plural}/\${typeof ${v} === 'string' ? ${v} : ${v}._id.toHexString()}\`, principal);`,
    `  const stored = (${v}: ${n.pascal}Doc) => svc.${n.camelPlural}.findOne({ _id: ${v}._id });`,
    '',
    `  test('when ${a.who.desc} changes every field, then 200 with the view and a new updatedAt; createdAt${c.owner ? ' and owner' : ''} stay', async () => {`,
    a.decl + a.given(),
    '    const before = Date.now();',
    `    const changes = ${n.builder}();`,
    '',
    `    const res = await update(${v}${argOf()}).send(changes);`,
    '',
    '    expect(res.status).toBe(200);',
    '    expect(res.body).toEqual({',
    `      id: ${idOf(c)},`,
    viewFields,
    c.owner && `      user: { id: ${v}.userId },`,
    `      createdAt: ${v}.createdAt.toISOString(),`,
    '      updatedAt: expect.any(String),',
    '    });',
    '    expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThanOrEqual(before);',
    `    const doc = await stored(${v});`,
    `    expect(doc).toMatchObject({ ${storedFields}, ${c.owner ? `userId: ${v}.userId, ` : ''}createdAt: ${v}.createdAt });`,
    '    expect(doc!.updatedAt.toISOString()).toBe(res.body.updatedAt);',
    '  });',
    '',
    `  test('when only ${first.name} is sent, then the other fields stay as they were', async () => {`,
    a.decl + a.given(),
    `    const { ${first.name}: value } = ${n.builder}();`,
    '',
    `    const res = await update(${v}${argOf()}).send({ ${first.name}: value });`,
    '',
    '    expect(res.status).toBe(200);',
    `    const { ${first.name}: _old, ...others } = viewOf(${v});`,
    `    expect(res.body).toMatchObject({ ...others, ${first.name}: ${first.type === 'date' ? 'new Date(value!).toISOString()' : 'value'}, updatedAt: expect.any(String) });`,
    `    expect(await stored(${v})).toMatchObject({ ${first.name}: ${first.type === 'date' ? 'new Date(value!)' : 'value'} });`,
    '  });',
    '',
    `  test('when ${rest.length ? 'the other fields are' : `${first.name} is`} sent as a form, then 200 and ${rest.length ? `${first.name} stays as it was` : 'it is stored with its type'}', async () => {`,
    a.decl + a.given(),
    rest.length > 0 ? `    const { ${first.name}: _kept, ...changes } = ${n.builder}();` : `    const changes = ${n.builder}();`,
    '',
    `    const res = await update(${v}${argOf()}).type('form').send(asForm(changes));`,
    '',
    '    expect(res.status).toBe(200);',
    `    expect(res.body).toMatchObject({ ${c.fields
      .map((f, i) => (i === 0 && rest.length ? `${f.name}: viewOf(${v}).${f.name}` : `${f.name}: changes.${f.name}`))
      .join(', ')} });`,
    `    expect(await stored(${v})).toMatchObject({ ${c.fields
      .map((f, i) => (i === 0 && rest.length ? `${f.name}: ${v}.${f.name}` : `${f.name}: ${storedOfBody(f, 'changes')}`))
      .join(', ')} });`,
    '  });',
    c.owner && level === 'owner' && '',
    c.owner &&
      level === 'owner' &&
      lines(
        `  test('when an admin updates another user’s ${n.human}, then 200 and the owner stays', async () => {`,
        `    const ${v} = await given${n.pascal}(svc.${n.camelPlural});`,
        `    const changes = ${n.builder}();`,
        '',
        `    const res = await update(${v}, anAdmin()).send(changes);`,
        '',
        '    expect(res.status).toBe(200);',
        `    expect(res.body.user).toEqual({ id: ${v}.userId });`,
        `    expect(await stored(${v})).toMatchObject({ ${first.name}: ${storedOfBody(first, 'changes')}, userId: ${v}.userId });`,
        '  });',
      ),
    '',
    `  test('when the body names ${c.owner ? 'an owner, ' : ''}an id or timestamps, then they are ignored', async () => {`,
    a.decl + a.given(),
    c.owner && '    const other = aUser();',
    '',
    `    const res = await update(${v}${argOf()}).send({`,
    `      ...${n.builder}(),`,
    c.owner && '      user: { id: other.id },',
    c.owner && '      userId: other.id,',
    '      id: new ObjectId().toHexString(),',
    "      createdAt: '2000-01-01T00:00:00.000Z',",
    "      updatedAt: '2000-01-01T00:00:00.000Z',",
    '    });',
    '',
    '    expect(res.status).toBe(200);',
    `    expect(res.body).toMatchObject({ id: ${idOf(c)}, ${c.owner ? `user: { id: ${v}.userId }, ` : ''}createdAt: ${v}.createdAt.toISOString() });`,
    "    expect(res.body.updatedAt).not.toBe('2000-01-01T00:00:00.000Z');",
    `    expect(await stored(${v})).toMatchObject({ ${c.owner ? `userId: ${v}.userId, ` : ''}createdAt: ${v}.createdAt });`,
    '  });',
    level !== 'public' && '',
    level !== 'public' &&
      lines(
        "  describe('refused', () => {",
        '    test.each([',
        refusedRows(level),
        "    ])('when $case, then $status $code and nothing changes', async ({ principal, status, code }) => {",
        `      const ${v} = await given${n.pascal}(svc.${n.camelPlural});`,
        '',
        `      const res = await update(${v}, principal).send(${n.builder}());`,
        '',
        '      expect(res.status).toBe(status);',
        '      expect(res.body.code).toBe(code);',
        "      if (status === 401) expect(res.headers['www-authenticate']).toBe('Bearer realm=\"restgate\"');",
        `      expect(await stored(${v})).toEqual(${v});`,
        '    });',
        '  });',
      ),
    '',
    '  test.each([',
    "    { case: 'unknown', id: () => new ObjectId().toHexString() },",
    "    { case: 'malformed', id: () => 'xyz' },",
    "  ])('when the id is $case, then 404 and nothing is written', async ({ id }) => {",
    a.decl.replace(/\n$/, ''),
    '    const before = await svc.' + n.camelPlural + '.countDocuments();',
    '',
    `    const res = await update(id()${argOf()}).send(${n.builder}());`,
    '',
    '    expect(res.status).toBe(404);',
    `    expect(res.body.code).toBe('${n.snake}_not_found');`,
    `    expect(await svc.${n.camelPlural}.countDocuments()).toBe(before);`,
    '  });',
    '',
    "  describe('validation', () => {",
    '    test.each([',
    ...invalid.map(
      (x) => `      { case: '${x.what}', body: { ${x.field.name}: ${x.value} }, param: '${x.field.name}', rule: '${x.rule}' },`,
    ),
    "      { case: 'the body has no field to change', body: {}, param: 'body', rule: 'object.missing' },",
    `      { case: 'the body has only unknown fields', body: { ${c.owner ? 'userId' : 'unknown'}: 'x' }, param: 'body', rule: 'object.missing' },`,
    "    ])('when $case (JSON), then 400 naming $param, and nothing changes', async ({ body, param, rule }) => {",
    a.decl.replace(/^ {4}/, '      ') + a.given('      '),
    '',
    `      const res = await update(${v}${argOf()}).send(body);`,
    '',
    '      expect(res.status).toBe(400);',
    "      expect(res.body).toMatchObject({ code: 'validation_failed', param, message: expect.any(String) });",
    '      expect(res.body.errors).toContainEqual(expect.objectContaining({ param, rule }));',
    `      expect(await stored(${v})).toEqual(${v});`,
    '    });',
    '',
    `    test('when a form sends ${first.name}[$ne]=x, then it is a key of its own: 400 (nothing to change) and nothing changes', async () => {`,
    a.decl.replace(/^ {4}/, '      ') + a.given('      '),
    '',
    `      const res = await update(${v}${argOf()}).type('form').send('${first.name}[$ne]=x');`,
    '',
    '      expect(res.status).toBe(400);',
    `      expect(res.body).toMatchObject({ param: 'body', message: 'send at least one of ${c.fieldNames.join(', ')}' });`,
    `      expect(await stored(${v})).toEqual(${v});`,
    '    });',
    '  });',
    '});',
    '',
  );
  return testFile(c, body, [{ from: 'mongodb', values: ['ObjectId'] }]);
}

function deleteTest(c) {
  const { n } = c;
  const level = c.level('delete');
  const a = actors(c, level);
  const v = n.camel;
  const argOf = () => (a.arg ? `, ${a.arg}` : '');
  const body = lines(
    `describe('DELETE /${n.plural}/:id', () => {`,
    '  let svc: TestService;',
    '  beforeAll(async () => {',
    `    svc = await start${n.pascalPlural}();`,
    '  });',
    '  afterAll(async () => {',
    '    await svc.stop();',
    '  });',
    '',
    `  const exists = async (_id: ObjectId) => (await svc.${n.camelPlural}.countDocuments({ _id })) === 1;`,
    '',
    `  test('when ${a.who.desc} deletes, then 204 with no body, and the ${n.human} is gone', async () => {`,
    a.decl + a.given(),
    '',
    `    const res = await call(svc.app, 'delete', \`/${n.plural}/\${${idOf(c)}}\`${argOf()});`,
    '',
    '    expect(res.status).toBe(204);',
    "    expect(res.text).toBe('');",
    `    expect(await exists(${v}._id)).toBe(false);`,
    '  });',
    level === 'owner' && '',
    level === 'owner' &&
      lines(
        `  test('when an admin deletes another user’s ${n.human}, then 204 and it is gone', async () => {`,
        `    const ${v} = await given${n.pascal}(svc.${n.camelPlural});`,
        '',
        `    const res = await call(svc.app, 'delete', \`/${n.plural}/\${${idOf(c)}}\`, anAdmin());`,
        '',
        '    expect(res.status).toBe(204);',
        `    expect(await exists(${v}._id)).toBe(false);`,
        '  });',
      ),
    '',
    "  test('when it was already deleted, then 404', async () => {",
    a.decl + a.given(),
    `    const path = \`/${n.plural}/\${${idOf(c)}}\`;`,
    `    await call(svc.app, 'delete', path${argOf()}).expect(204);`,
    '',
    `    const res = await call(svc.app, 'delete', path${argOf()});`,
    '',
    '    expect(res.status).toBe(404);',
    `    expect(res.body.code).toBe('${n.snake}_not_found');`,
    '  });',
    level !== 'public' && '',
    level !== 'public' &&
      lines(
        "  describe('refused', () => {",
        '    test.each([',
        refusedRows(level),
        `    ])('when $case, then $status $code and the ${n.human} stays', async ({ principal, status, code }) => {`,
        `      const ${v} = await given${n.pascal}(svc.${n.camelPlural});`,
        '',
        `      const res = await call(svc.app, 'delete', \`/${n.plural}/\${${idOf(c)}}\`, principal);`,
        '',
        '      expect(res.status).toBe(status);',
        '      expect(res.body.code).toBe(code);',
        "      if (status === 401) expect(res.headers['www-authenticate']).toBe('Bearer realm=\"restgate\"');",
        `      expect(await exists(${v}._id)).toBe(true);`,
        '    });',
        '  });',
      ),
    '',
    '  test.each([',
    "    { case: 'unknown', id: () => new ObjectId().toHexString() },",
    "    { case: 'malformed', id: () => 'nope' },",
    "  ])('when the id is $case, then 404', async ({ id }) => {",
    a.decl.replace(/\n$/, ''),
    `    const res = await call(svc.app, 'delete', \`/${n.plural}/\${id()}\`${argOf()});`,
    '',
    '    expect(res.status).toBe(404);',
    `    expect(res.body.code).toBe('${n.snake}_not_found');`,
    '  });',
    '});',
    '',
  );
  return testFile(c, body, [{ from: 'mongodb', values: ['ObjectId'] }]);
}

module.exports = { getTest, updateTest, deleteTest };
