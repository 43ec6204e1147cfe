import fs from 'node:fs';
import path from 'node:path';
import type Joi from 'joi';

function isObjectSchema(value: unknown): value is Joi.ObjectSchema {
  return (
    !!value &&
    typeof value === 'object' &&
    (value as { type?: unknown }).type === 'object' &&
    typeof (value as Joi.Schema).validate === 'function'
  );
}

/** The joi schema a service's src/config.ts exports (the one object schema among its exports). */
export async function loadConfigSchema(packageDir: string): Promise<Joi.ObjectSchema> {
  const file = path.join(packageDir, 'src', 'config.ts');
  if (!fs.existsSync(file)) throw new Error(`${file} does not exist`);
  const exports = (await import(file)) as Record<string, unknown>;
  const schemas = Object.values(exports).filter(isObjectSchema);
  if (schemas.length !== 1) throw new Error(`${file} exports ${schemas.length} object schemas; expected exactly one`);
  return schemas[0] as Joi.ObjectSchema;
}

export interface SchemaResult {
  problems: string[];
  value: Record<string, unknown>;
}

/**
 * Validates a container environment as the service would at start, but stricter: a key the schema
 * does not know is a problem too, since in the compose file it can only be a typo or a leftover.
 */
export function checkEnvironment(schema: Joi.ObjectSchema, env: Record<string, string | undefined>): SchemaResult {
  const defined = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined));
  const { value, error } = schema.validate(defined, { abortEarly: false, allowUnknown: false, convert: true });
  return { problems: error ? error.details.map((d) => d.message) : [], value: (value ?? {}) as Record<string, unknown> };
}
