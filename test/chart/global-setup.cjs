// Installs helm, kubeconform, conftest and Kubernetes' schemas when missing (cached per user by
// scripts/chart/tools.cjs) and hands their paths to the test workers; npm run test:chart has
// done so already.
const { ensureChartTools } = require('../../scripts/chart/tools.cjs');

module.exports = async function globalSetup() {
  process.env.RESTGATE_CHART_TOOLS ||= JSON.stringify(ensureChartTools());
};
