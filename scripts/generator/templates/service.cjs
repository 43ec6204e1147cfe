'use strict';
// The service's frame: package.json, tsconfig.json, config.ts, start.ts, app.ts, errors.ts.

function packageJson(s) {
  const pkg = {
    name: `@restgate/${s.names.plural}`,
    version: '0.1.0',
    private: true,
    description: `${s.names.pascalPlural}: a generated resource (npm run generate -- resource ${s.names.plural}).`,
    license: 'MIT',
    main: 'dist/start.js',
    scripts: { start: 'node dist/start.js' },
    dependencies: s.versions.dependencies,
    devDependencies: s.versions.devDependencies,
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function tsconfigJson() {
  return `{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": {
    "rootDir": "src",
    "outDir": "dist"
  },
  "include": ["src"],
  "references": [{ "path": "../../shared" }]
}
`;
}

function configTs(s) {
  const { names: n } = s;
  return `import Joi from 'joi';
import { baseConfigSchema, type BaseConfig } from '@restgate/shared';

export interface ${n.pascalPlural}Config extends BaseConfig {
  MONGODB_URL: string;
  MONGODB_DB: string;
}

/** The ${n.humanPlural} service's environment: the common keys plus its own database. */
export const configSchema = baseConfigSchema.keys({
  PORT: Joi.number().port().default(${s.port}).description('Port to listen on.'),
  MONGODB_URL: Joi.string()
    .uri({ scheme: ['mongodb', 'mongodb+srv'] })
    .required()
    .description('MongoDB connection string (a MongoDB-compatible server such as FerretDB works too).'),
  MONGODB_DB: Joi.string().default('${n.plural}').description('Database this service owns.'),
}) as Joi.ObjectSchema<${n.pascalPlural}Config>;
`;
}

function startTs(s) {
  const { names: n } = s;
  return `import { createMongo, retryUntil, runService } from '@restgate/shared';
import { createApp } from './app';
import { configSchema, type ${n.pascalPlural}Config } from './config';
import { create${n.pascal}Repository } from './data/${n.singular}.repository';

const NAME = '${n.plural}';
const INDEX_TIMEOUT_MS = 30_000;

void runService<${n.pascalPlural}Config>({
  name: NAME,
  schema: configSchema,
  start: async (config, logger) => {
    const mongo = createMongo(config.MONGODB_URL, config.MONGODB_DB, logger);
    const ${n.camelPlural} = create${n.pascal}Repository(mongo.db);
    // The database may come up after us: retry for a while, then fail the start loudly.
    await retryUntil(() => ${n.camelPlural}.ensureIndexes(), INDEX_TIMEOUT_MS, logger, 'creating indexes');
    return { app: createApp({ config, logger, ${n.camelPlural}, readiness: [mongo.readiness] }), stop: mongo.close };
  },
});
`;
}

function appTs(s) {
  const { names: n } = s;
  return `import type { Express } from 'express';
import { applyPolicy, createHttpApp, type Logger, type ReadinessCheck, type RouteDef } from '@restgate/shared';
import type { ${n.pascalPlural}Config } from './config';
import type { ${n.pascal}Repository } from './domain/${n.singular}.model';
import { ${n.camel}Routes } from './http/${n.singular}.routes';

export interface AppDeps {
  config: Pick<${n.pascalPlural}Config, 'PRINCIPAL_SECRET' | 'BODY_LIMIT' | 'ROUTE_POLICY'>;
  logger: Logger;
  ${n.camelPlural}: ${n.pascal}Repository;
  /** What \`/ready\` checks: the database. */
  readiness: ReadinessCheck[];
}

/** The ${n.humanPlural} HTTP app; connects nothing and listens nowhere. */
export function createApp(deps: AppDeps): Express {
  // The operator's overrides apply here, where the table is mounted, so tests see what production sees.
  const routes = applyPolicy(${n.camel}Routes({ ${n.camelPlural}: deps.${n.camelPlural} }), deps.config.ROUTE_POLICY) as RouteDef[];
  return createHttpApp({
    name: '${n.plural}',
    logger: deps.logger,
    routes,
    principalSecret: deps.config.PRINCIPAL_SECRET,
    readiness: deps.readiness,
    bodyLimit: deps.config.BODY_LIMIT,
  });
}
`;
}

function errorsTs(s) {
  const { names: n } = s;
  return `import { errors } from '@restgate/shared';

/** The errors only this service raises; the rest come from \`errors\` in @restgate/shared. */
export const ${n.camel}Errors = {
  notFound: () => errors.notFound('No ${n.human} with this id.', '${n.snake}_not_found'),
};
`;
}

module.exports = { packageJson, tsconfigJson, configTs, startTs, appTs, errorsTs };
