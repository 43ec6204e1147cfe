import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { aSignedInUser, anArticle } from '../support/actors';
import { client } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';

/**
 * What a client generated from /openapi.json gets (openapi-typescript for the types, openapi-fetch
 * for the calls): every filter of a listing as a typed query parameter, so a wrong value type or
 * an operator the field doesn't take fails at compile time, and the calls work at run time.
 */
const MODULES = path.resolve(__dirname, '../../node_modules');

let stack: TestStack;
let dir: string;

beforeAll(async () => {
  stack = await startTestStack();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-typed-client-'));
  fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(stack.openapi));
  const generated = spawnSync(process.execPath, [path.join(MODULES, 'openapi-typescript/bin/cli.js'), 'openapi.json', '-o', 'api.d.ts'], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (generated.status !== 0) throw new Error(`openapi-typescript failed: ${generated.stderr}`);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The compile errors of a file that uses the generated types, one line per error. */
function typeErrors(source: string): string[] {
  const file = path.join(dir, `client-${Math.random().toString(36).slice(2)}.ts`);
  fs.writeFileSync(
    file,
    `import createClient from 'openapi-fetch';\nimport type { paths } from './api';\nconst api = createClient<paths>({ baseUrl: 'http://localhost' });\n${source}\n`,
  );
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    baseUrl: dir,
    paths: { 'openapi-fetch': [path.join(MODULES, 'openapi-fetch')] },
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]!);
}

describe('a client generated from /openapi.json', () => {
  test('when it calls listings with filters of the right types, then it compiles', () => {
    const errors = typeErrors(`
export const articles = () =>
  api.GET('/articles', {
    params: { query: { 'title[prefix]': 'Hel', 'createdAt[gte]': '2026-01-01T00:00:00Z', 'user[in]': 'a,b', count: false, limit: 10 } },
  });
export const users = () => api.GET('/users', { params: { query: { role: 'admin', emailVerified: true, 'email[prefix]': 'ada' } } });
`);

    expect(errors).toEqual([]);
  });

  test.each([
    ['a number for a date filter', `api.GET('/articles', { params: { query: { 'createdAt[gte]': 5 } } });`],
    ['an operator the field does not take', `api.GET('/articles', { params: { query: { 'title[gt]': 'a' } } });`],
    ['an operator injection', `api.GET('/articles', { params: { query: { 'title[$ne]': 'a' } } });`],
    ['a role that does not exist', `api.GET('/users', { params: { query: { role: 'owner' } } });`],
    ['a string for a boolean filter', `api.GET('/users', { params: { query: { emailVerified: 'yes' } } });`],
  ])('when it passes %s, then it does not compile', (_case, call) => {
    expect(typeErrors(`export const bad = () => ${call}`)).not.toEqual([]);
  });

  test('when it runs a filtered listing against the stack, then it gets exactly the matching rows', async () => {
    const author = await aSignedInUser(client(stack.url), stack);
    const marker = `typed${Date.now().toString(36)}`;
    for (const title of [`${marker} one`, `${marker} two`]) {
      await client(stack.url).post('/articles', { bearer: author.token, json: anArticle({ title }) });
    }
    const { default: createClient } = (await import('openapi-fetch')) as unknown as { default: (o: { baseUrl: string }) => any };
    const api = createClient({ baseUrl: stack.url });

    const { data, response } = await api.GET('/articles', { params: { query: { 'title[prefix]': `${marker} t`, count: false } } });

    expect(response.status).toBe(200);
    expect(data.rows.map((row: { title: string }) => row.title)).toEqual([`${marker} two`]);
    expect(data.count).toBeUndefined();
  });
});
