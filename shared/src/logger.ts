import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths that never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-restgate-principal"]',
  'req.query.access_token',
  'res.headers["set-cookie"]',
  '*.password',
  '*.access_token',
  '*.token',
  '*.refresh_token',
  '*.refreshToken',
  '*.secret',
  // Multi-factor sign-in: the sign-in's second-step credential, recovery codes, an enrolment's secret.
  '*.mfaToken',
  '*.recoveryCode',
  '*.recoveryCodes',
  '*.otpauthUrl',
  '*.qrSvg',
  '*.auth.pass',
  'config.*SECRET*',
];

/** JSON logger to stdout with secrets redacted. */
export function createLogger(options: { name: string; level?: string }): Logger {
  return pino({
    name: options.name,
    level: options.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: options.name },
    timestamp: isoTimeByMillisecond(),
    formatters: { level: (label) => ({ level: label }) },
  });
}

/**
 * pino's `isoTime`, to the same text, formatted once per millisecond: under load several lines
 * fall in the same one (a proxied request's access line is written on every request).
 */
function isoTimeByMillisecond(): () => string {
  let at = Number.NaN;
  let text = '';
  return () => {
    const now = Date.now();
    if (now !== at) {
      at = now;
      text = `,"time":"${new Date(now).toISOString()}"`;
    }
    return text;
  };
}
