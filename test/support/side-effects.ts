/**
 * Reads a service's own database to assert what a request wrote, or that it wrote nothing.
 * Black-box about the schema: it searches every collection, so it does not depend on names.
 */
import type { Db, Document, Filter } from 'mongodb';

async function collections(db: Db): Promise<string[]> {
  const infos = await db.listCollections({}, { nameOnly: true }).toArray();
  return infos.map((info) => info.name).filter((name) => !name.startsWith('system.'));
}

/** Every document, in any collection of `db`, that matches `filter`. */
export async function documentsMatching(db: Db, filter: Filter<Document>): Promise<Document[]> {
  const found: Document[] = [];
  for (const name of await collections(db)) found.push(...(await db.collection(name).find(filter).toArray()));
  return found;
}

async function countAll(db: Db): Promise<number> {
  let total = 0;
  for (const name of await collections(db)) total += await db.collection(name).countDocuments({});
  return total;
}

/**
 * How many documents `db` holds, over all collections (for requests whose input names nothing
 * unique), once it has stopped changing: a service's background work (identity's outbox relay
 * leasing the verification mail of a user an earlier test signed up) must not count as the
 * request's writes. Two equal counts 150 ms apart, for at most 5 s.
 */
export async function documentCount(db: Db): Promise<number> {
  let last = await countAll(db);
  for (const deadline = Date.now() + 5_000; Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    const now = await countAll(db);
    if (now === last) return now;
    last = now;
  }
  return last;
}
