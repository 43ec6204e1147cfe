'use strict';
// Every file of a generated service, by path, from the spec's context.

const fs = require('node:fs');
const path = require('node:path');
const data = require('./data.cjs');
const domain = require('./domain.cjs');
const http = require('./http.cjs');
const service = require('./service.cjs');
const tests = require('./tests/index.cjs');

/** The resource-independent parts, kept verbatim as in services/articles. */
const generic = (name) => fs.readFileSync(path.join(__dirname, 'generic', `${name}.ts.tmpl`), 'utf8');

function renderService(c) {
  const { n } = c;
  const dir = `services/${n.plural}`;
  const ownership = c.owner;
  const files = {
    [`${dir}/package.json`]: service.packageJson(c),
    [`${dir}/tsconfig.json`]: service.tsconfigJson(c),
    [`${dir}/src/app.ts`]: service.appTs(c),
    [`${dir}/src/config.ts`]: service.configTs(c),
    [`${dir}/src/errors.ts`]: service.errorsTs(c),
    [`${dir}/src/start.ts`]: service.startTs(c),
    [`${dir}/src/data/${n.singular}.repository.ts`]: data.repositoryTs(c),
    [`${dir}/src/data/mongo-resource.ts`]: generic('mongo-resource'),
    [`${dir}/src/domain/${n.singular}.model.ts`]: domain.modelTs(c),
    [`${dir}/src/domain/resource.ts`]: generic('resource'),
    [`${dir}/src/http/${n.singular}.routes.ts`]: http.routesTs(c),
    [`${dir}/src/http/${n.singular}.schemas.ts`]: http.schemasTs(c),
    [`${dir}/src/http/${n.singular}.views.ts`]: http.viewsTs(c),
    [`${dir}/src/http/view.ts`]: generic('view'),
  };
  if (ownership) files[`${dir}/src/domain/ownership.ts`] = generic('ownership');
  if (c.has('create')) files[`${dir}/src/domain/create-${n.singular}.ts`] = domain.createTs(c);
  if (c.loads) files[`${dir}/src/domain/get-${n.singular}.ts`] = domain.getTs(c);
  if (c.has('list')) files[`${dir}/src/domain/list-${n.plural}.ts`] = domain.listTs(c);
  if (c.has('update')) files[`${dir}/src/domain/update-${n.singular}.ts`] = domain.updateTs(c);
  if (c.has('delete')) files[`${dir}/src/domain/delete-${n.singular}.ts`] = domain.deleteTs(c);
  for (const [rel, text] of Object.entries(tests.renderTests(c))) files[`${dir}/test/${rel}`] = text;
  // Sorted, so that --dry-run and the summary list them as a folder listing would.
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
}

module.exports = { renderService };
