'use strict';
// Part 6 of `npm run bench`: what a rule costs a read. 10,000 records of a resource whose list and
// read rule is `status = "published"`, half of them published; through the resource repository's
// own code on the bench's database server, alternating in rounds: a list page with the rule and
// one client filter (`count=false`) against the same page with the rule written as a client
// filter instead, and one record read with the rule against one read without it.

const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const COUNT = 10_000;

/**
 * @param {{ mongoUrl: string, samples: number, log: (m: string) => void,
 *   row: (section: string, what: string, value: string, note?: string) => void }} options
 */
async function ruleCost({ mongoUrl, samples, log, row }) {
  const { MongoClient, ObjectId } = require('mongodb');
  const resource = require(path.join(ROOT, 'shared', 'dist', 'resource'));
  const definition = resource.defineResource({
    name: 'bench_memos',
    singular: 'memo',
    fields: {
      title: { type: 'string', required: true, max: 200 },
      status: { type: 'enum', values: ['draft', 'published'], required: true, index: true },
      pages: { type: 'integer', index: true },
    },
    searchable: ['title'],
    sortable: ['createdAt', 'pages'],
    defaultSort: '-createdAt',
    access: { create: 'user', list: 'public', read: 'public', update: 'owner', delete: 'owner' },
    rules: { list: 'status = "published"', read: 'status = "published"' },
  });
  const guard = resource.createRuleGuard(resource.compileResourceRules(definition), {
    production: true,
    notFound: () => new Error('not found'),
  });
  const client = new MongoClient(mongoUrl);
  await client.connect();
  const db = client.db(`bench_rules_${process.pid}`);
  try {
    const repository = resource.createResourceRepository(db, definition, { cursorSecret: 'bench' });
    await repository.ensureIndexes();
    const base = Date.UTC(2026, 0, 1);
    for (let done = 0; done < COUNT; done += 1000) {
      const batch = [];
      for (let i = done; i < done + 1000; i += 1) {
        const at = new Date(base + i * 60_000);
        batch.push({
          _id: new ObjectId(),
          title: `Memo ${i}`,
          status: i % 2 ? 'published' : 'draft',
          pages: i % 100,
          userId: 'u1',
          createdAt: at,
          updatedAt: at,
          version: 1,
        });
      }
      await db.collection('bench_memos').insertMany(batch);
    }
    log(`rules: ${COUNT} records loaded`);
    const caller = { kind: 'user', id: 'u2', role: 'user', amr: ['pwd'] };
    const page = { sort: [['createdAt', -1]], page: 1, limit: 30, count: false };
    const byRule = () => repository.list({ ...page, filters: [{ field: 'pages', op: 'gte', value: 50 }] }, guard.listWhere(caller, page));
    const byFilter = () =>
      repository.list({
        ...page,
        filters: [
          { field: 'pages', op: 'gte', value: 50 },
          { field: 'status', op: 'eq', value: 'published' },
        ],
      });
    const one = await db.collection('bench_memos').findOne({ status: 'published', pages: 51 });
    const id = one._id.toHexString();
    const readByRule = () => guard.read(repository, id, caller);
    const readPlain = () => repository.findById(id);

    const time = async (fn) => {
      const t = process.hrtime.bigint();
      await fn();
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    const sampled = { byRule: [], byFilter: [], readByRule: [], readPlain: [] };
    // Warm-up, then alternate so that a neighbour's burst hits both sides alike.
    for (const fn of [byRule, byFilter, readByRule, readPlain]) for (let i = 0; i < 5; i += 1) await fn();
    // Two pairs, each in its own loop (a read after a list page would pay for the page's garbage),
    // the two sides of a pair alternating which goes first.
    for (const [first, second] of [
      ['byRule', 'byFilter'],
      ['readByRule', 'readPlain'],
    ]) {
      const fns = { byRule, byFilter, readByRule, readPlain };
      for (let i = 0; i < samples; i += 1) {
        const order = i % 2 === 0 ? [first, second] : [second, first];
        for (const name of order) sampled[name].push(await time(fns[name]));
      }
    }
    const [a, b] = [await byRule(), await byFilter()];
    if (JSON.stringify(a.rows) !== JSON.stringify(b.rows)) throw new Error('the rule and the client filter found different rows');
    const p50 = (xs) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)];
    const f = (ms) => `${ms.toFixed(2)} ms`;
    row(
      '6 rules',
      `list page of ${COUNT.toLocaleString('en')} (half readable), rule + 1 filter / the rule as a filter, p50`,
      `**${(p50(sampled.byRule) / p50(sampled.byFilter)).toFixed(2)}×**`,
      `${f(p50(sampled.byRule))} / ${f(p50(sampled.byFilter))}; ${samples} each, alternating`,
    );
    row(
      '6 rules',
      'one record read, with the rule / without, p50',
      `**${(p50(sampled.readByRule) / p50(sampled.readPlain)).toFixed(2)}×**`,
      `${f(p50(sampled.readByRule))} / ${f(p50(sampled.readPlain))}`,
    );
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
}

module.exports = { ruleCost };
