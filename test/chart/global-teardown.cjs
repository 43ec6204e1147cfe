// Removes the run's scratch folder (rendered releases, chart copies, helm's throw-away homes).
const fs = require('node:fs');

module.exports = async function globalTeardown() {
  const dir = process.env.RESTGATE_CHART_SCRATCH;
  if (dir && dir.includes('restgate-chart-')) fs.rmSync(dir, { recursive: true, force: true });
};
