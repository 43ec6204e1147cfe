import { ANONYMOUS, type Principal } from '@restgate/shared';
import { hiddenFields, ruleCaller } from '@restgate/shared/resource';
import { articleRules } from '../src/domain/article.rules';
import {
  aMarker,
  anAdmin,
  anArticle,
  anArticleDoc,
  aUser,
  FIELD_NAMES,
  FIELDS,
  givenArticles,
  MARKER_FIELD,
  MASTER,
  RULED,
  storedBody,
  type ArticleDoc,
} from './support/builders';
import { call, startArticles, type TestService } from './support/harness';

/**
 * The rules of `resource.ts`, whatever they say, through the service: for records of every value
 * of the enum and boolean fields, owned by different users, and for every kind of caller, each
 * answer is what the compiled rule says (the level tests of the other files hold for presets; an
 * action with an expression, or with field rules, is checked here).
 */
const ruled = Object.values(RULED).some(Boolean);

const owners = [aUser(), aUser(), aUser()];
const callers: Array<[string, Principal | undefined]> = [
  ['anonymous', undefined],
  ['the first owner', owners[0]],
  ['another owner', owners[1]],
  ['a user who owns nothing', aUser()],
  ['an admin', anAdmin()],
  ['the master key', MASTER],
];
const asRuleCaller = (principal: Principal | undefined) => ruleCaller(principal ?? ANONYMOUS);

/** A value of each enum value and boolean, rotating with `i`; the other fields as the builders make them. */
function variedDoc(i: number, marker: string): ArticleDoc {
  const varied: Record<string, unknown> = {};
  for (const name of FIELD_NAMES) {
    const field = FIELDS[name]!;
    if (field.type === 'enum') varied[name] = field.values![i % field.values!.length];
    if (field.type === 'boolean') varied[name] = i % 2 === 0;
  }
  const doc = anArticleDoc({ ...varied, [MARKER_FIELD]: `${marker} ${i}`, userId: owners[i % owners.length]!.id } as Partial<ArticleDoc>);
  return doc;
}

const records = (marker: string) => Array.from({ length: 12 }, (_, i) => variedDoc(i, marker));
const idOf = (doc: ArticleDoc) => doc._id.toHexString();

(ruled ? describe : describe.skip)('rules of resource.ts, through the service', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startArticles();
  });
  afterAll(async () => {
    await svc.stop();
  });

  test('when each kind of caller lists, then exactly the records the list rule lets it see, without the fields it may not read', async () => {
    const marker = aMarker();
    const docs = await givenArticles(svc.articles, records(marker));
    for (const [who, principal] of callers) {
      const res = await call(svc.app, 'get', `/articles?q=${marker}&limit=100`, principal);
      // A preset's level is the level tests' (list.test.ts); the fields below are this file's.
      if (res.status !== 200 && articleRules.actions.list.preset) continue;
      const expected = docs
        .filter((doc) => articleRules.actions.list.preset || articleRules.actions.list.test(doc, asRuleCaller(principal)))
        .map(idOf)
        .sort();

      expect({ who, ids: (res.body.rows as Array<{ id: string }>).map((row) => row.id).sort() }).toEqual({ who, ids: expected });
      for (const row of res.body.rows as Array<Record<string, unknown>>) {
        const doc = docs.find((d) => idOf(d) === row.id)!;
        for (const field of hiddenFields(articleRules, doc, asRuleCaller(principal)))
          expect({ who, field, shown: field in row }).toEqual({ who, field, shown: false });
      }
    }
  });

  test('when each kind of caller reads each record, then 200 where the read rule holds and 404 where it does not', async () => {
    if (articleRules.actions.read.preset) return; // the level tests' (get.test.ts)
    const docs = await givenArticles(svc.articles, records(aMarker()));
    for (const doc of docs) {
      for (const [who, principal] of callers) {
        const res = await call(svc.app, 'get', `/articles/${idOf(doc)}`, principal);
        const readable = articleRules.actions.read.test(doc, asRuleCaller(principal));
        expect({ who, status: res.status }).toEqual({ who, status: readable ? 200 : 404 });
      }
    }
  });

  test.each(['update', 'delete'] as const)(
    'when each kind of caller tries to %s each record, then the rule decides: 404 unreadable, 403 refused, else done',
    async (action) => {
      if (articleRules.actions[action].preset) return; // the level tests' (update.test.ts, delete.test.ts)
      for (const [who, principal] of callers) {
        const docs = await givenArticles(svc.articles, records(aMarker()));
        for (const doc of docs) {
          const caller = asRuleCaller(principal);
          const readable = articleRules.actions.read.test(doc, caller);
          const res =
            action === 'update'
              ? await call(svc.app, 'patch', `/articles/${idOf(doc)}`, principal).send({
                  [MARKER_FIELD]: `${String(doc[MARKER_FIELD])} changed`,
                })
              : await call(svc.app, 'delete', `/articles/${idOf(doc)}`, principal);
          const changes = { [MARKER_FIELD]: `${String(doc[MARKER_FIELD])} changed` };
          const allowed = articleRules.actions[action].test(doc, caller, action === 'update' ? changes : {});
          const expected = !readable ? 404 : !allowed ? 403 : action === 'update' ? 200 : 204;
          expect({ who, action, status: res.status }).toEqual({ who, action, status: expected });
        }
      }
    },
  );

  test('when each kind of caller creates, then 201 where the create rule holds and 403 rule_denied where it does not', async () => {
    if (articleRules.actions.create.preset) return; // the level tests' (create.test.ts)
    for (const [who, principal] of callers) {
      if (principal?.kind !== 'user') continue; // a record needs an owner: only users create
      for (let i = 0; i < 4; i += 1) {
        const varied = variedDoc(i, aMarker());
        const body = anArticle(
          Object.fromEntries(FIELD_NAMES.filter((n) => ['enum', 'boolean'].includes(FIELDS[n]!.type)).map((n) => [n, varied[n]])),
        );
        const res = await call(svc.app, 'post', '/articles', principal).send(body);
        const values = storedBody(body);
        const expected = articleRules.actions.create.test({ ...values, userId: principal.id }, asRuleCaller(principal), values) ? 201 : 403;
        expect({ who, body, status: res.status }).toEqual({ who, body, status: expected });
      }
    }
  });
});

test('the rules of resource.ts compile (a rule that does not stops the service at its start)', () => {
  expect(Object.keys(articleRules.actions).sort()).toEqual(['create', 'delete', 'list', 'read', 'update']);
});
