'use strict';
// The generated service's tests (test/), in the style of services/articles/test.

const { createTest } = require('./create.cjs');
const { deleteTest, getTest, updateTest } = require('./item.cjs');
const { listTest } = require('./list.cjs');
const { openapiTest, serviceTest, viewsUnitTest } = require('./misc.cjs');
const { buildersTs, harnessTs } = require('./support.cjs');

function renderTests(c) {
  const s = c.n.singular;
  const files = {
    'support/builders.ts': buildersTs(c),
    'support/harness.ts': harnessTs(c),
    [`${s}.openapi.test.ts`]: openapiTest(c),
    [`${s}.views.unit.test.ts`]: viewsUnitTest(c),
    'service.test.ts': serviceTest(c),
  };
  if (c.has('create')) files[`${s}.create.test.ts`] = createTest(c);
  if (c.has('list')) files[`${s}.list.test.ts`] = listTest(c);
  if (c.has('read')) files[`${s}.get.test.ts`] = getTest(c);
  if (c.has('update')) files[`${s}.update.test.ts`] = updateTest(c);
  if (c.has('delete')) files[`${s}.delete.test.ts`] = deleteTest(c);
  return files;
}

module.exports = { renderTests };
