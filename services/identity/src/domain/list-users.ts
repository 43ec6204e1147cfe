import type { ListingPage, ListingQuery } from '@restgate/shared/data';
import type { IdentityDeps } from './identity-deps';
import { fullView, type FullUserView } from './user';

/** Full views; with `fields`, only those (and `id`). */
export async function listUsers(
  deps: Pick<IdentityDeps, 'users'>,
  query: ListingQuery,
): Promise<ListingPage & { rows: Partial<FullUserView>[] }> {
  const { rows, ...page } = await deps.users.list(query);
  const views = rows.map(fullView);
  const fields = query.fields;
  if (!fields) return { rows: views, ...page };
  return { rows: views.map((view) => pick(view, ['id', ...fields])), ...page };
}

function pick<T extends object>(view: T, fields: string[]): Partial<T> {
  return Object.fromEntries(Object.entries(view).filter(([key]) => fields.includes(key))) as Partial<T>;
}
