/**
 * The chart's configuration surface: values.yaml's `config` has the keys and defaults of
 * .env.example (every one that is not a secret, a port or a compose-only setting), each default
 * means what the service's own default means, files/config-keys.yaml gives each component exactly
 * the keys its config schema reads, and values.yaml holds no secret value.
 */
import path from 'node:path';
import type Joi from 'joi';
import YAML from 'yaml';
import { readRegistry } from '../../gateway/src/registry';
import { checkEnvironment, loadConfigSchema } from '../static/support/config-schemas';
import { ROOT, readRepoFile } from '../static/support/stack';
import * as configFiles from '../../scripts/config-files.cjs';
import { entriesOf, isSecretKey } from './support/shapes';

const registry = readRegistry();
const values = YAML.parse(readRepoFile('deploy/helm/restgate/values.yaml')) as { config: Record<string, string>; [key: string]: unknown };
const configKeys = YAML.parse(readRepoFile('deploy/helm/restgate/files/config-keys.yaml')) as {
  every: string[];
  /** What a component not listed under `components` reads besides `every` (articles, generated resources). */
  resources: string[];
  components: Record<string, string[]>;
};

/** `KEY=default` and `# KEY=default  # comment` lines: the key and its default (empty when none). */
function envExample(): Record<string, string> {
  const entries = [...readRepoFile('.env.example').matchAll(/^[ \t]*#?[ \t]*([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, key, rest]) => [
    key as string,
    (rest as string).split(/\s+#\s/)[0]!.trim(),
  ]);
  return Object.fromEntries(entries);
}

const secretKeys = new Set([...entriesOf(registry).flatMap((e) => e.secrets), 'MONGODB_URL']);
/** Keys of .env.example the chart sets itself or that belong to other ways of running the stack (scripts/config-files.cjs). */
const NOT_CONFIG: Record<string, string> = configFiles.NOT_CHART_CONFIG;
/**
 * Defaults the chart sets differently from .env.example, with why (scripts/config-files.cjs
 * writes them into values.yaml). Each must still be a value the services accept.
 */
const CHART_DEFAULTS: Record<string, { value: string; comment: string[] }> = configFiles.CHART_DEFAULTS;
const isPort = (key: string) => key === 'PORT' || entriesOf(registry).some((e) => e.portEnv === key);

describe("values.yaml's config", () => {
  test('has every key of .env.example that is not a secret, a port or compose-only, with its default', () => {
    const expected = Object.fromEntries(
      Object.entries(envExample())
        .filter(([key]) => !secretKeys.has(key) && !isSecretKey(key) && !isPort(key) && !(key in NOT_CONFIG))
        .map(([key, value]) => [key, CHART_DEFAULTS[key]?.value ?? value]),
    );

    expect(values.config).toEqual(expected);
  });

  test('values.schema.json accepts exactly these keys, so that a misspelt one is refused', () => {
    const schema = JSON.parse(readRepoFile('deploy/helm/restgate/values.schema.json')) as {
      properties: { config: { additionalProperties: boolean; properties: Record<string, unknown> } };
    };

    expect(schema.properties.config.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties.config.properties).sort()).toEqual(Object.keys(values.config).sort());
  });

  test('every secret of .env.example is a key of the Secret some component receives', () => {
    const secrets = Object.keys(envExample()).filter((key) => isSecretKey(key) && !(key in NOT_CONFIG));

    expect(secrets.filter((key) => !secretKeys.has(key))).toEqual([]);
  });
});

/** A component's config schema, and the minimal environment it starts with. */
async function schemaOf(dir: string): Promise<{ schema: Joi.ObjectSchema; base: Record<string, string> }> {
  const schema = await loadConfigSchema(path.join(ROOT, dir));
  const keys = Object.keys(schema.describe().keys ?? {});
  const stand: Record<string, string> = {
    PORT: '9999',
    MONGODB_URL: 'mongodb://mongo:27017',
    AMQP_URL: 'amqp://u:p@rabbitmq:5672',
    REDIS_URL: 'redis://redis:6379',
    IDENTITY_URL: 'http://identity:9001',
    ARTICLES_URL: 'http://articles:9002',
  };
  const base = Object.fromEntries(
    keys
      .filter((k) => k in stand || ['MASTER_KEY', 'JWT_SECRET', 'PRINCIPAL_SECRET', 'WEBHOOK_ENCRYPTION_KEY'].includes(k))
      .map((k) => [k, stand[k] ?? `${k.toLowerCase()}-stand-in-0123456789abcdefghij`]),
  );
  return { schema, base };
}

const components = entriesOf(registry).map((e) => [e.name, e.dir] as const);

describe('files/config-keys.yaml', () => {
  test.each(components)('%s gets exactly the config keys its schema reads', async (name, dir) => {
    const { schema } = await schemaOf(dir);
    const reads = Object.keys(schema.describe().keys ?? {}).filter((key) => key in values.config);
    const given = [...configKeys.every, ...(configKeys.components[name] ?? configKeys.resources)];

    expect([...new Set(given)].sort()).toEqual(reads.sort());
  });

  test.each(components)("%s: each value's default means what the schema's default means", async (_name, dir) => {
    const { schema, base } = await schemaOf(dir);
    const defaults = checkEnvironment(schema, base);
    expect(defaults.problems).toEqual([]);
    const reads = Object.keys(schema.describe().keys ?? {}).filter((key) => key in values.config && values.config[key] !== '');

    for (const key of reads) {
      const given = checkEnvironment(schema, { ...base, [key]: values.config[key] });
      const expected = key in CHART_DEFAULTS ? given.value[key] : defaults.value[key];
      expect({ key, problems: given.problems, value: given.value[key] }).toEqual({ key, problems: [], value: expected });
    }
  });
});

describe('values.yaml holds no secret', () => {
  function secretValues(node: unknown, at: string[] = []): string[] {
    if (Array.isArray(node)) return node.flatMap((item, i) => secretValues(item, [...at, String(i)]));
    if (node && typeof node === 'object') return Object.entries(node).flatMap(([k, v]) => secretValues(v, [...at, k]));
    const key = at[at.length - 1] ?? '';
    return isSecretKey(key) && typeof node === 'string' && node !== '' ? [at.join('.')] : [];
  }

  test('no secret-named key has a value, and no Secret is rendered (chart.test.ts)', () => {
    expect(secretValues(values)).toEqual([]);
    expect(Object.keys(values.config).filter(isSecretKey)).toEqual([]);
  });
});
