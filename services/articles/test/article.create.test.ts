import { lengthBounds } from '@restgate/shared/resource';
import {
  aCreator,
  aMarker,
  anAdmin,
  anArticle,
  aUser,
  aValue,
  badValues,
  FIELD_NAMES,
  FIELDS,
  MARKER_FIELD,
  MASTER,
  REQUIRED,
  formOf,
  shownBody,
  storedBody,
  type Body,
  describeUnless,
} from './support/builders';
import { call, startArticles, type TestService } from './support/harness';

/** The first required field: the one a 400 for an empty body names. */
const FIRST = REQUIRED[0]!;
const without = (body: Body, name: string) => Object.fromEntries(Object.entries(body).filter(([key]) => key !== name));

describeUnless('create')('POST /articles', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startArticles();
  });
  afterAll(async () => {
    await svc.stop();
  });

  const post = (principal?: Parameters<typeof call>[3]) => call(svc.app, 'post', '/articles', principal);
  const storedFor = (userId: string) => svc.articles.find({ userId }).toArray();

  test('when a user sends every field as JSON, then 201 with the view, and the article is stored with the user as owner', async () => {
    const user = aCreator();
    const body = anArticle();

    const res = await post(user).send(body);

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      ...shownBody(body),
      user: { id: user.id },
      createdAt: expect.any(String),
      updatedAt: res.body.createdAt,
    });
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    expect(res.headers.location).toBe(`/articles/${res.body.id}`);
    const [doc, ...others] = await storedFor(user.id);
    expect(others).toHaveLength(0);
    expect(doc).toMatchObject({ ...storedBody(body), userId: user.id });
    expect(doc!._id.toHexString()).toBe(res.body.id);
    expect(doc!.createdAt.toISOString()).toBe(res.body.createdAt);
    expect(doc!.updatedAt).toEqual(doc!.createdAt);
  });

  test('when only the required fields are sent, then 201 and the others are left out', async () => {
    const user = aCreator();
    const body = Object.fromEntries(Object.entries(anArticle()).filter(([name]) => REQUIRED.includes(name)));

    const res = await post(user).send(body);

    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['id', ...REQUIRED, 'user', 'createdAt', 'updatedAt'].sort());
    expect(await storedFor(user.id)).toHaveLength(1);
  });

  test('when the body is a form, then 201 and the article is stored, with & and = kept in text', async () => {
    const user = aCreator();
    const body = anArticle({ [MARKER_FIELD]: `Form ${aMarker()} a&b=c` });
    const form = formOf(body);

    const res = await post(user).type('form').send(form.toString());

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(shownBody(body));
    expect(await storedFor(user.id)).toEqual([expect.objectContaining(storedBody(body))]);
  });

  test.each(FIELD_NAMES.filter((name) => FIELDS[name]!.type === 'string'))(
    'when %s has surrounding spaces, then it is stored trimmed',
    async (name) => {
      const user = aCreator();
      const value = aValue(name) as string;

      const res = await post(user).send(anArticle({ [name]: `  ${value}  ` }));

      expect(res.status).toBe(201);
      expect(res.body[name]).toBe(value);
      expect((await storedFor(user.id))[0]?.[name]).toBe(value);
    },
  );

  test.each(FIELD_NAMES.filter((name) => ['string', 'text'].includes(FIELDS[name]!.type)))(
    'when %s is at its shortest and at its longest, then 201 (the bounds are inclusive)',
    async (name) => {
      const { min, max } = lengthBounds(FIELDS[name]!);
      const user = aCreator();

      const [shortest, longest] = [
        await post(user).send(anArticle({ [name]: 'x'.repeat(min) })),
        await post(user).send(anArticle({ [name]: 'y'.repeat(max) })),
      ];

      expect([shortest.status, longest.status]).toEqual([201, 201]);
      expect((await storedFor(user.id)).map((doc) => (doc[name] as string).length).sort((a, b) => a - b)).toEqual([min, max]);
    },
  );

  test('when an admin creates, then 201 and the admin owns the article', async () => {
    const admin = anAdmin();

    const res = await post(admin).send(anArticle());

    expect(res.status).toBe(201);
    expect(res.body.user).toEqual({ id: admin.id });
    expect(await storedFor(admin.id)).toHaveLength(1);
  });

  test('when the body names an owner, id or timestamps, then they are ignored and the caller owns the article', async () => {
    const user = aCreator();
    const other = aUser();
    const marker = aMarker();

    const res = await post(user).send({
      ...anArticle({ [MARKER_FIELD]: marker }),
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
    expect(await svc.articles.countDocuments({ [MARKER_FIELD]: marker, userId: user.id })).toBe(1);
    expect(await storedFor(other.id)).toHaveLength(0);
  });

  describe('refused', () => {
    test('when there is no principal, then 401 with WWW-Authenticate and nothing is written', async () => {
      const marker = aMarker();

      const res = await post().send(anArticle({ [MARKER_FIELD]: marker }));

      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="restgate"');
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(await svc.articles.countDocuments({ [MARKER_FIELD]: marker })).toBe(0);
    });

    test('when the caller is the master key, then 403 and nothing is written', async () => {
      const marker = aMarker();

      const res = await post(MASTER).send(anArticle({ [MARKER_FIELD]: marker }));

      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
      expect(await svc.articles.countDocuments({ [MARKER_FIELD]: marker })).toBe(0);
    });

    test('when the principal header is forged, then 401 (an anonymous caller) and nothing is written', async () => {
      const marker = aMarker();

      const res = await post()
        .set('x-restgate-principal', 'e30.c2lnbmF0dXJl')
        .send(anArticle({ [MARKER_FIELD]: marker }));

      expect(res.status).toBe(401);
      expect(await svc.articles.countDocuments({ [MARKER_FIELD]: marker })).toBe(0);
    });
  });

  describe('validation', () => {
    const missing = REQUIRED.map((name) => ({
      case: `${name} is missing`,
      param: name,
      rule: 'any.required',
      body: without(anArticle(), name),
    }));
    const bad = badValues().map(({ case: what, param, value, rule }) => ({ case: what, param, rule, body: anArticle({ [param]: value }) }));

    test.each([...missing, ...bad])(
      'when $case (JSON), then 400 naming $param ($rule), and nothing is written',
      async ({ body, param, rule }) => {
        const user = aCreator();

        const res = await post(user).send(body);

        expect(res.status).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.body).toMatchObject({ status: 400, code: 'validation_failed', param, message: expect.any(String) });
        expect(res.body.errors).toContainEqual(expect.objectContaining({ param, rule }));
        expect(await storedFor(user.id)).toHaveLength(0);
      },
    );

    test(`when a form sends ${FIRST}[$ne]=x, then it is a key of its own (never an operator): 400 naming ${FIRST}, nothing written`, async () => {
      const user = aCreator();
      const rest = formOf(without(anArticle(), FIRST));

      const res = await post(user).type('form').send(`${FIRST}[$ne]=x&${rest.toString()}`);

      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ param: FIRST, errors: [expect.objectContaining({ param: FIRST, rule: 'any.required' })] });
      expect(await storedFor(user.id)).toHaveLength(0);
    });

    test(`when a form repeats ${MARKER_FIELD}, then 400 naming ${MARKER_FIELD}`, async () => {
      const user = aCreator();
      const rest = formOf(without(anArticle(), MARKER_FIELD));

      const res = await post(user).type('form').send(`${MARKER_FIELD}=a&${MARKER_FIELD}=b&${rest.toString()}`);

      expect(res.status).toBe(400);
      expect(res.body.param).toBe(MARKER_FIELD);
      expect(await storedFor(user.id)).toHaveLength(0);
    });

    test('when every field is missing, then 400 listing every required one', async () => {
      const user = aCreator();

      const res = await post(user).send({});

      expect(res.status).toBe(400);
      expect(res.body.param).toBe(FIRST);
      expect(res.body.errors.map((e: { param: string }) => e.param)).toEqual(REQUIRED);
      expect(await storedFor(user.id)).toHaveLength(0);
    });

    test('when the JSON is malformed, then 400 malformed_body and nothing is written', async () => {
      const user = aCreator();

      const res = await post(user).set('content-type', 'application/json').send(`{"${FIRST}": "x",`);

      expect(res.status).toBe(400);
      expect(res.body.code).toBe('malformed_body');
      expect(await storedFor(user.id)).toHaveLength(0);
    });

    test('when the body is neither JSON nor a form, then 415', async () => {
      const user = aCreator();

      const res = await post(user).set('content-type', 'text/plain').send(`${FIRST}=x`);

      expect(res.status).toBe(415);
      expect(await storedFor(user.id)).toHaveLength(0);
    });
  });
});
