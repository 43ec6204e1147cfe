'use strict';
// Part 5 of `npm run bench`: the embedded database (FerretDB on PostgreSQL) at 10,000 and 100,000
// articles, the stack's patched FerretDB against FerretDB's own build in one run, each in a whole
// stack of its own (scripts/lib/ferretdb-build.cjs has both). Every figure is a p50 through the
// gateway, as a client sees it; a request the gateway gives up on (its upstream deadline) is shown
// as such, with the same query timed at the database (the articles repository's own code, on the
// driver) beside it. Traffic goes to 127.0.0.1 only; the stacks are removed at the end.

const path = require('node:path');
const http = require('node:http');
const { randomBytes } = require('node:crypto');
const { startBenchStack } = require('./bench-stack.cjs');
const { request } = require('./http.cjs');

const ROOT = path.resolve(__dirname, '..', '..');
const PASSWORD = 'bench-password-123';
const OWNERS = 100;
const SPACING_MS = 60_000;

/** @param {number} ms */
const f = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms >= 10 ? ms.toFixed(0) : ms.toFixed(1)} ms`);

/**
 * @param {{ sizes: number[], samples: number, stockSamples: number, log: (m: string) => void,
 *   row: (section: string, what: string, value: string, note?: string) => void }} options
 */
async function embeddedDatabase({ sizes, samples, stockSamples, log, row }) {
  /** @type {Record<string, Record<string, { gateway: string, db: number }>>} */
  const results = {};
  for (const ferret of /** @type {const} */ (['patched', 'stock'])) {
    const cleanups = [];
    try {
      const own = await startBenchStack({ cleanups, log, ferret, env: { RATE_LIMIT_ALL: '100000000/60' } });
      const measured = await measureStack(own, ferret === 'patched' ? samples : stockSamples, sizes, log);
      for (const [key, value] of Object.entries(measured)) (results[key] ??= {})[ferret] = value;
    } finally {
      for (const fn of cleanups.reverse()) await fn().catch((err) => log(`cleanup: ${err.message}`));
    }
  }
  for (const [key, { patched, stock }] of Object.entries(results)) {
    const [size, what] = key.split('|');
    row(
      `5 embedded db ${size}`,
      `${what}: p50 through the gateway (database part)`,
      `**${patched.gateway}** (${f(patched.db)})`,
      `FerretDB's own: ${stock.gateway} (${f(stock.db)}); ${(stock.db / patched.db).toFixed(0)}× at the database`,
    );
  }
}

async function measureStack(own, samples, sizes, log) {
  const { MongoClient, ObjectId } = require('mongodb');
  const { createResourceRepository } = require(path.join(ROOT, 'shared', 'dist', 'resource'));
  const { articleResource } = require(path.join(ROOT, 'services', 'articles', 'dist', 'resource'));
  const port = Number(new URL(own.stack.gatewayUrl).port);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const client = new MongoClient(own.mongoUrl);
  await client.connect();
  try {
    const db = client.db(own.dbNames.articles);
    const repository = createResourceRepository(db, articleResource, { cursorSecret: 'bench' });
    const call = (method, urlPath, headers = {}, body = undefined) =>
      request(port, agent, { method, path: urlPath, headers, body }, 300_000);
    const json = (value) => ({ 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(JSON.stringify(value))) });

    // One article through the API: the template of the loaded ones.
    const email = `bench.${randomBytes(4).toString('hex')}@example.test`;
    const signUp = { email, password: PASSWORD, access_token: own.masterKey };
    if ((await call('POST', '/users', json(signUp), JSON.stringify(signUp))).status !== 201) throw new Error('sign-up failed');
    const auth = { access_token: own.masterKey };
    const basic = `Basic ${Buffer.from(`${email}:${PASSWORD}`).toString('base64')}`;
    const signedIn = await call('POST', '/auth', { ...json(auth), authorization: basic }, JSON.stringify(auth));
    const token = JSON.parse(signedIn.body).token;
    const article = { title: 'Template', content: 'Benchmark article. '.repeat(20), access_token: token };
    const created = await call('POST', '/articles', json(article), JSON.stringify(article));
    if (created.status !== 201) throw new Error(`POST /articles answered ${created.status}`);
    const template = await db.collection('articles').findOne({ _id: new ObjectId(JSON.parse(created.body).id) });

    const owners = Array.from({ length: OWNERS }, () => new ObjectId().toHexString());
    const base = Date.UTC(2026, 0, 1);
    let loaded = 1;
    /** @type {Record<string, { gateway: string, db: number }>} */
    const out = {};
    for (const size of sizes) {
      const started = Date.now();
      while (loaded < size) {
        const batch = [];
        for (let i = 0; i < 1000 && loaded < size; i += 1, loaded += 1) {
          const at = new Date(base + loaded * SPACING_MS);
          batch.push({
            ...template,
            _id: new ObjectId(),
            title: `Loaded article ${loaded}`,
            userId: owners[loaded % OWNERS],
            createdAt: at,
            updatedAt: at,
          });
        }
        await db.collection('articles').insertMany(batch, { ordered: false });
      }
      log(`${size} articles loaded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      const middle = await db.collection('articles').findOne({ title: `Loaded article ${Math.floor(size / 2)}` });
      const day = new Date(base + Math.floor(size / 2) * SPACING_MS);
      const dayEnd = new Date(day.getTime() + 86_400_000);
      const firstPage = await call('GET', '/articles?limit=30&count=false');
      const next = /<([^>]*)>; rel="next"/.exec(firstPage.headers.link ?? '')?.[1];
      const after = next && new URL(next, 'http://x').searchParams.get('after');
      const listing = { sort: [['createdAt', -1]], page: 2, limit: 30, count: false };
      // The repository here signs its cursors with a key of its own.
      const dbAfter = (await repository.list({ ...listing, page: 1 })).next;
      /** @type {Array<[string, string, () => Promise<unknown>]>} */
      const shapes = [
        ['one record', `/articles/${middle._id.toHexString()}`, () => repository.findById(middle._id.toHexString())],
        ['a page (page 2, no total)', '/articles?limit=30&page=2&count=false', () => repository.list(listing)],
        ['a page with its total', '/articles?limit=30&page=2', () => repository.list({ ...listing, count: true })],
        [
          'the page after a cursor',
          `/articles?limit=30&count=false&after=${after}`,
          () => repository.list({ ...listing, page: 1, after: dbAfter }),
        ],
        [
          "a filtered page (one owner's)",
          `/articles?limit=30&count=false&user=${owners[7]}`,
          () => repository.list({ ...listing, page: 1, filters: [{ field: 'user', op: 'eq', value: owners[7] }] }),
        ],
        [
          'a one-day range, sorted',
          `/articles?limit=30&count=false&createdAt[gte]=${day.toISOString()}&createdAt[lt]=${dayEnd.toISOString()}`,
          () =>
            repository.list({
              ...listing,
              page: 1,
              filters: [
                { field: 'createdAt', op: 'gte', value: day },
                { field: 'createdAt', op: 'lt', value: dayEnd },
              ],
            }),
        ],
      ];
      for (const [what, urlPath, atDatabase] of shapes) {
        const through = [];
        let refused = 0;
        for (let i = 0; i < samples; i += 1) {
          const t = process.hrtime.bigint();
          const res = await call('GET', urlPath);
          const ms = Number(process.hrtime.bigint() - t) / 1e6;
          if (res.status === 200) through.push(ms);
          else if (res.status === 504 || res.status === 503) refused += 1;
          else throw new Error(`GET ${urlPath} answered ${res.status}: ${res.body.slice(0, 200)}`);
        }
        const direct = [];
        for (let i = 0; i < samples; i += 1) {
          const t = process.hrtime.bigint();
          await atDatabase();
          direct.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
        const gateway = refused > through.length ? `gateway deadline passed (${refused}/${samples})` : f(p50(through));
        out[`${size.toLocaleString('en')}|${what}`] = { gateway, db: p50(direct) };
        log(`${size} ${what}: ${gateway}, database ${f(p50(direct))}`);
      }
    }
    return out;
  } finally {
    agent.destroy();
    await client.close();
  }
}

/** @param {number[]} samples */
function p50(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN;
}

module.exports = { embeddedDatabase };
