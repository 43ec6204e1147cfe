// Installs helm, kubeconform, conftest and Kubernetes' schemas when missing (cached per user by
// scripts/chart/tools.cjs) and hands their paths to the test workers; npm run test:chart has
// done so already. Also one scratch folder for the run, which the teardown removes (workers end
// without their exit hooks running).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ensureChartTools } = require('../../scripts/chart/tools.cjs');

module.exports = async function globalSetup() {
  process.env.RESTGATE_CHART_TOOLS ||= JSON.stringify(ensureChartTools());
  process.env.RESTGATE_CHART_SCRATCH = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-chart-'));
};
