import { compileResourceRules, createRuleGuard, type RuleGuard } from '@restgate/shared/resource';
import { articleErrors } from '../errors';
import { articleResource } from '../resource';

/**
 * The rules of `resource.ts`, compiled when the service starts: a rule that does not compile
 * stops it, naming the resource, the action and the position. An action whose rule is a preset
 * (`public`, `user`, `owner`, `admin`, `master`) keeps its level checks; an expression goes
 * through the guard (docs/api.md, "Rules").
 */
export const articleRules = compileResourceRules(articleResource);

/** Field rules, decided once: a read rule is judged on whole records; a write rule also applies on create. */
export const hasFieldReadRules = Object.values(articleRules.fields).some((field) => field.read);
export const hasFieldRules = Object.keys(articleRules.fields).length > 0;

/** The use cases of rule expressions; outside production a refusal names the clause that refused. */
export function articleGuard(production: boolean): RuleGuard {
  return createRuleGuard(articleRules, { production, notFound: () => articleErrors.notFound() });
}
