/**
 * `@restgate/shared/resource`: what every resource service (articles, and each one generated from
 * it) needs and that is not about its own records: the definition type and what follows from it
 * (schemas, listing, view), the repository over a collection, and the ownership rules.
 */
export {
  defineResource,
  routeLevel,
  type ApiFieldOf,
  type FieldDef,
  type ModelOf,
  type ResourceAccess,
  type ResourceDefinition,
  type ValuesOf,
} from './definition';
export { assertMayActOn, assertMayTry, assertUser, type UserPrincipal } from './ownership';
export { createResourceRepository, type Listing, type ResourceRepository } from './repository';
export { filtersOf, lengthBounds, resourceSchemas } from './schemas';
export { defineView, type Selected } from './view';
export {
  compileRule,
  PRESET_EXPRESSIONS,
  RULE_LIMITS,
  RULE_PRESETS,
  type CompiledRule,
  type RuleAction,
  type RuleCaller,
} from './rules/compile';
export { RuleError } from './rules/parse';
export {
  assertFieldsWritable,
  compileResourceRules,
  hiddenFields,
  refusingClause,
  RULE_ACTIONS,
  ruleCaller,
  ruleRefusal,
  ruleSpec,
  type ResourceRules,
} from './rules/resource-rules';
export { createRuleGuard, versionInIfMatch, visibleTag, type RuleGuard } from './rules/guard';
export * from './events';
export { compiledResourceFile, loadRecordAccess, recordAccess, usersAccess, type RecordAccess } from './access';
export { runDatabaseService, type DatabaseService } from './run-service';
