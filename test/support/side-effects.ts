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

/** How many documents `db` holds, over all collections (for requests whose input names nothing unique). */
export async function documentCount(db: Db): Promise<number> {
  let total = 0;
  for (const name of await collections(db)) total += await db.collection(name).countDocuments({});
  return total;
}
