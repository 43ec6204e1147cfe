import { errors, type Principal } from '@restgate/shared';
import type { ResourceAccess } from './access';

/** One subscription: a resource's records, one record, or (users/me) the reader's own user. */
export interface Topic {
  resource: string;
  /** The record watched; none for the whole collection. */
  recordId?: string;
}

export const MAX_TOPICS = 50;
const RECORD_ID = /^[0-9a-f]{24}$/;

const bad = (message: string) => errors.validation([{ param: 'topics', message, rule: 'topics' }]);

/**
 * `articles,articles/<id>,users/me` → topics. 400 (`param: topics`) for none, more than 50, an
 * unknown resource or a malformed id; 401/403 for a topic the principal may never see anything of.
 */
export function parseTopics(text: string | undefined, resources: ReadonlyMap<string, ResourceAccess>, principal: Principal): Topic[] {
  const parts = (text ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0) throw bad('Name at least one topic: a resource (`articles`), a record (`articles/<id>`) or `users/me`.');
  if (parts.length > MAX_TOPICS) throw bad(`At most ${MAX_TOPICS} topics on one stream.`);
  const topics: Topic[] = [];
  for (const part of new Set(parts)) {
    const [name, id, extra] = part.split('/');
    const access = resources.get(name!);
    if (!access || extra !== undefined)
      throw bad(`Unknown topic "${part.slice(0, 100)}": the resources are ${[...resources.keys()].join(', ')}.`);
    let recordId: string | undefined;
    if (id !== undefined) {
      if (name === 'users' && id === 'me') {
        if (principal.kind !== 'user') throw errors.unauthorized('users/me needs a user token.', false);
        recordId = principal.id;
      } else if (RECORD_ID.test(id)) recordId = id;
      else throw bad(`"${part.slice(0, 100)}": a record topic is <resource>/<24 hex digits>.`);
    }
    access.assertMayWatch(principal, recordId ? 'record' : 'collection');
    topics.push({ resource: name!, ...(recordId ? { recordId } : {}) });
  }
  return topics;
}

/** How a topic set watches a record of `resource`: as that record, as part of its collection, or not. */
export function scopeOf(topics: readonly Topic[], resource: string, recordId: string): 'record' | 'collection' | null {
  let scope: 'record' | 'collection' | null = null;
  for (const topic of topics) {
    if (topic.resource !== resource) continue;
    if (topic.recordId === recordId) return 'record';
    if (topic.recordId === undefined) scope = 'collection';
  }
  return scope;
}
