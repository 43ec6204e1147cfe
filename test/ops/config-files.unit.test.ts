import path from 'node:path';
import Joi from 'joi';
import * as configFiles from '../../scripts/config-files.cjs';
import * as configTable from '../../scripts/config-table.cjs';

const ROOT_DIR = path.resolve(__dirname, '..', '..');

/** The config schemas from the sources (what the build turns into dist/config.js), so no build is needed here. */
function sourcePackages(): Array<{ service: string; schema: Joi.ObjectSchema }> {
  return configTable.packageDirs(ROOT_DIR).map((dir) => {
    const file = path.join(ROOT_DIR, dir, 'src', 'config.ts');
    return {
      service: path.basename(dir),
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      schema: configTable.schemaOf(require(file) as Record<string, unknown>, file) as Joi.ObjectSchema,
    };
  });
}

const textOf = (files: Array<{ file: string; text: string }>, name: string) => files.find((f) => f.file === name)!.text;

describe('the configuration files made from the config schemas', () => {
  test('.env.example, values.yaml, values.schema.json and the docs table are what the schemas make (else: `npx tsc -b && node scripts/config-files.cjs --write`)', () => {
    expect(configFiles.staleFiles(ROOT_DIR, sourcePackages())).toEqual([]);
  });

  test('when a schema gains a key, then every file gets it (and the check fails until they are written again)', () => {
    const packages = sourcePackages().map((p) =>
      p.service === 'identity'
        ? {
            ...p,
            schema: p.schema.keys({ BRAND_NEW_LIMIT: Joi.number().default(7).description('How many of a new thing. And more text.') }),
          }
        : p,
    );

    const files = configFiles.generated(ROOT_DIR, packages);

    expect(textOf(files, '.env.example')).toMatch(/^# BRAND_NEW_LIMIT=7 +# How many of a new thing$/m);
    expect(textOf(files, 'deploy/helm/restgate/values.yaml')).toMatch(/^ {2}BRAND_NEW_LIMIT: '7'$/m);
    expect(JSON.parse(textOf(files, 'deploy/helm/restgate/values.schema.json')).properties.config.properties).toHaveProperty(
      'BRAND_NEW_LIMIT',
    );
    expect(textOf(files, 'docs/configuration.md')).toContain('| `BRAND_NEW_LIMIT` | identity | `7` |');
    expect(configFiles.staleFiles(ROOT_DIR, packages).sort()).toEqual(
      ['.env.example', 'deploy/helm/restgate/values.schema.json', 'deploy/helm/restgate/values.yaml', 'docs/configuration.md'].sort(),
    );
  });

  test('when no schema reads a key any more, then its line leaves .env.example and the chart', () => {
    const packages = sourcePackages().map((p) =>
      p.service === 'mailer' ? { ...p, schema: p.schema.fork(['SENDING_LEASE_MS'], (s) => s.strip()) } : p,
    );
    const withoutKey = packages.map((p) => {
      if (p.service !== 'mailer') return p;
      const keys = Object.keys(p.schema.describe().keys ?? {}).filter((k) => k !== 'SENDING_LEASE_MS');
      return { ...p, schema: Joi.object(Object.fromEntries(keys.map((k) => [k, p.schema.extract(k)]))) };
    });

    const env = textOf(configFiles.generated(ROOT_DIR, withoutKey), '.env.example');

    expect(env).not.toMatch(/SENDING_LEASE_MS/);
    expect(env).toMatch(/^# SMTP_POOL_SIZE=5$/m);
  });
});
