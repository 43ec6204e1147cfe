import { aMarker, anAdmin, anArticle, aUser, MASTER } from './support/builders';
import { call, startArticles, type TestService } from './support/harness';

describe('POST /articles', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startArticles();
  });
  afterAll(async () => {
    await svc.stop();
  });

  const post = (principal?: Parameters<typeof call>[3]) => call(svc.app, 'post', '/articles', principal);
  const storedFor = (userId: string) => svc.articles.find({ userId }).toArray();

  test('when a user sends title and content as JSON, then 201 with the view, and the article is stored with the user as owner', async () => {
    const user = aUser();
    const body = anArticle();

    const res = await post(user).send(body);

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      title: body.title,
      content: body.content,
      user: { id: user.id },
      createdAt: expect.any(String),
      updatedAt: res.body.createdAt,
    });
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    expect(res.headers.location).toBe(`/articles/${res.body.id}`);
    const [stored, ...others] = await storedFor(user.id);
    expect(others).toHaveLength(0);
    expect(stored).toMatchObject({ title: body.title, content: body.content, userId: user.id });
    expect(stored!._id.toHexString()).toBe(res.body.id);
    expect(stored!.createdAt.toISOString()).toBe(res.body.createdAt);
    expect(stored!.updatedAt).toEqual(stored!.createdAt);
  });

  test('when the body is a form, then 201 and the article is stored', async () => {
    const user = aUser();
    const marker = aMarker();

    const res = await post(user).type('form').send(`title=Form+${marker}&content=a%26b%3Dc`);

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: `Form ${marker}`, content: 'a&b=c' });
    expect(await storedFor(user.id)).toEqual([expect.objectContaining({ title: `Form ${marker}`, content: 'a&b=c' })]);
  });

  test('when the title has surrounding spaces, then it is stored trimmed', async () => {
    const user = aUser();
    const marker = aMarker();

    const res = await post(user).send(anArticle({ title: `  ${marker}  ` }));

    expect(res.status).toBe(201);
    expect(res.body.title).toBe(marker);
    expect((await storedFor(user.id))[0]?.title).toBe(marker);
  });

  test('when content is empty and title has 200 characters, then 201 (the bounds are inclusive)', async () => {
    const user = aUser();
    const title = `${aMarker()}${'t'.repeat(200)}`.slice(0, 200);

    const res = await post(user).send({ title, content: '' });

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title, content: '' });
    expect(await storedFor(user.id)).toHaveLength(1);
  });

  test('when content has 100 000 characters, then 201', async () => {
    const user = aUser();

    const res = await post(user).send(anArticle({ content: 'c'.repeat(100_000) }));

    expect(res.status).toBe(201);
    expect((await storedFor(user.id))[0]?.content).toHaveLength(100_000);
  });

  test('when an admin creates, then 201 and the admin owns the article', async () => {
    const admin = anAdmin();

    const res = await post(admin).send(anArticle());

    expect(res.status).toBe(201);
    expect(res.body.user).toEqual({ id: admin.id });
    expect(await storedFor(admin.id)).toHaveLength(1);
  });

  test('when the body names an owner, id or timestamps, then they are ignored and the caller owns the article', async () => {
    const user = aUser();
    const other = aUser();
    const marker = aMarker();

    const res = await post(user).send({
      ...anArticle({ title: marker }),
      user: { id: other.id },
      userId: other.id,
      id: '0123456789abcdef01234567',
      _id: '0123456789abcdef01234567',
      createdAt: '2000-01-01T00:00:00.000Z',
    });

    expect(res.status).toBe(201);
    expect(res.body.user).toEqual({ id: user.id });
    expect(res.body.id).not.toBe('0123456789abcdef01234567');
    expect(res.body.createdAt).not.toBe('2000-01-01T00:00:00.000Z');
    expect(await svc.articles.countDocuments({ title: marker, userId: user.id })).toBe(1);
    expect(await storedFor(other.id)).toHaveLength(0);
  });

  describe('refused', () => {
    test('when there is no principal, then 401 with WWW-Authenticate and nothing is written', async () => {
      const marker = aMarker();

      const res = await post().send(anArticle({ title: marker }));

      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="restgate"');
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(await svc.articles.countDocuments({ title: marker })).toBe(0);
    });

    test('when the caller is the master key, then 403 and nothing is written', async () => {
      const marker = aMarker();

      const res = await post(MASTER).send(anArticle({ title: marker }));

      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
      expect(await svc.articles.countDocuments({ title: marker })).toBe(0);
    });

    test('when the principal header is forged, then 401 (an anonymous caller) and nothing is written', async () => {
      const marker = aMarker();

      const res = await post()
        .set('x-restgate-principal', 'e30.c2lnbmF0dXJl')
        .send(anArticle({ title: marker }));

      expect(res.status).toBe(401);
      expect(await svc.articles.countDocuments({ title: marker })).toBe(0);
    });
  });

  describe('validation', () => {
    test.each([
      { case: 'title is missing', body: { content: 'x' }, param: 'title', rule: 'any.required' },
      { case: 'title is blank', body: { title: '   ', content: 'x' }, param: 'title', rule: 'string.empty' },
      { case: 'title has 201 characters', body: { title: 't'.repeat(201), content: 'x' }, param: 'title', rule: 'string.max' },
      { case: 'title is an operator object', body: { title: { $ne: 1 }, content: 'x' }, param: 'title', rule: 'string.base' },
      { case: 'title is a number', body: { title: 5, content: 'x' }, param: 'title', rule: 'string.base' },
      { case: 'title is null', body: { title: null, content: 'x' }, param: 'title', rule: 'string.base' },
      { case: 'title is an array', body: { title: ['a'], content: 'x' }, param: 'title', rule: 'string.base' },
      { case: 'content is missing', body: { title: 'x' }, param: 'content', rule: 'any.required' },
      { case: 'content has 100 001 characters', body: { title: 'x', content: 'c'.repeat(100_001) }, param: 'content', rule: 'string.max' },
      { case: 'content is an operator object', body: { title: 'x', content: { $gt: '' } }, param: 'content', rule: 'string.base' },
    ])('when $case (JSON), then 400 naming $param, and nothing is written', async ({ body, param, rule }) => {
      const user = aUser();

      const res = await post(user).send(body);

      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 400, code: 'validation_failed', param, message: expect.any(String) });
      expect(res.body.errors).toContainEqual(expect.objectContaining({ param, rule }));
      expect(await storedFor(user.id)).toHaveLength(0);
    });

    test('when a form sends title[$ne]=x, then it is a key of its own (never an operator): 400 naming title, nothing written', async () => {
      const user = aUser();

      const res = await post(user).type('form').send('title[$ne]=x&content=y');

      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ param: 'title', errors: [expect.objectContaining({ param: 'title', rule: 'any.required' })] });
      expect(await storedFor(user.id)).toHaveLength(0);
    });

    test('when a form repeats title, then 400 naming title', async () => {
      const user = aUser();

      const res = await post(user).type('form').send('title=a&title=b&content=y');

      expect(res.status).toBe(400);
      expect(res.body.param).toBe('title');
      expect(await storedFor(user.id)).toHaveLength(0);
    });

    test('when both fields are missing, then 400 listing every failure', async () => {
      const user = aUser();

      const res = await post(user).send({});

      expect(res.status).toBe(400);
      expect(res.body.param).toBe('title');
      expect(res.body.errors.map((e: { param: string }) => e.param)).toEqual(['title', 'content']);
      expect(await storedFor(user.id)).toHaveLength(0);
    });

    test('when the JSON is malformed, then 400 malformed_body and nothing is written', async () => {
      const user = aUser();

      const res = await post(user).set('content-type', 'application/json').send('{"title": "x",');

      expect(res.status).toBe(400);
      expect(res.body.code).toBe('malformed_body');
      expect(await storedFor(user.id)).toHaveLength(0);
    });

    test('when the body is neither JSON nor a form, then 415', async () => {
      const user = aUser();

      const res = await post(user).set('content-type', 'text/plain').send('title=x&content=y');

      expect(res.status).toBe(415);
      expect(await storedFor(user.id)).toHaveLength(0);
    });
  });
});
