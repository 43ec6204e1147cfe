'use strict';
// The local `.env` (git-ignored): created on first run with random secrets, read on every run.
// Node built-ins only.

const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

/** Secrets generated on first run: 32 random bytes each, base64url (43 characters). */
// RABBITMQ_DEFAULT_PASS is for the container stack (docker compose reads the same .env).
const SECRET_KEYS = ['MASTER_KEY', 'JWT_SECRET', 'PRINCIPAL_SECRET', 'MFA_ENCRYPTION_KEY', 'WEBHOOK_ENCRYPTION_KEY', 'RABBITMQ_DEFAULT_PASS'];

const HEADER = `# restgate local configuration, created by \`npm start\`. Never commit this file.
# Every key is documented in .env.example. A variable set in the environment wins over this file.
`;

function randomSecret() {
  return randomBytes(32).toString('base64url');
}

/** Parses KEY=VALUE lines: blank lines and # comments skipped, quotes removed, trailing " # comment" dropped. */
function parseEnv(text) {
  const env = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const value = match[2];
    const quoted = /^(['"])(.*?)\1\s*(?:#.*)?$/.exec(value);
    // Unquoted values end at a " #" comment, as in dotenv.
    env[match[1]] = quoted ? quoted[2] : value.replace(/\s+#.*$/, '').trim();
  }
  return env;
}

/**
 * Returns `{ env, created, added, file }`. Creates `<rootDir>/.env` with fresh secrets when it does
 * not exist (`created: true`); appends any secret an existing file lacks (`added` names them), so
 * a hand-edited file never starts the stack with a missing key.
 */
function ensureEnvFile(rootDir) {
  const file = path.join(rootDir, '.env');
  let text = null;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }

  if (text === null) {
    const env = fresh();
    const body = SECRET_KEYS.map((key) => `${key}=${env[key]}`).join('\n');
    // 0600: the file holds the master key. 'wx' so two concurrent first runs cannot both write.
    try {
      fs.writeFileSync(file, `${HEADER}\n${body}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if (err.code === 'EEXIST') return ensureEnvFile(rootDir);
      throw err;
    }
    return { env, created: true, added: [], file };
  }

  const env = parseEnv(text);
  const added = SECRET_KEYS.filter((key) => !env[key]);
  if (added.length > 0) {
    for (const key of added) env[key] = randomSecret();
    const lines = added.map((key) => `${key}=${env[key]}`).join('\n');
    fs.appendFileSync(file, `${text.endsWith('\n') || text === '' ? '' : '\n'}${lines}\n`);
  }
  return { env, created: false, added, file };
}

/** One distinct random value per secret key. */
function fresh() {
  const env = {};
  for (const key of SECRET_KEYS) env[key] = randomSecret();
  return env;
}

module.exports = { ensureEnvFile, parseEnv, randomSecret, SECRET_KEYS };
