// @ts-check
'use strict';
// The services' JSON log lines (pino), read back for people: the level of a line, and one compact
// line for the terminal. Node built-ins only: npm start uses it before `npm install`.

/** @type {Record<string, number>} */
const PINO_LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** A parsed JSON log line; the fields read here are pino's and the services' own. @typedef {Record<string, any>} LogRecord */

/** The numeric pino level of a parsed log record (the services log the label, pino's default is the number). */
/** @param {LogRecord} record @returns {number} */
function levelOf(record) {
  if (typeof record.level === 'number') return record.level;
  return PINO_LEVELS[record.level] ?? 30;
}

/** The record of a JSON log line; null for any other line. @param {string} line @returns {LogRecord | null} */
function parseLine(line) {
  if (!line.startsWith('{')) return null;
  try {
    const record = JSON.parse(line);
    return record && typeof record === 'object' ? record : null;
  } catch {
    return null;
  }
}

/** One compact human line for a JSON log line: "WARN message (code=…, requestId=…): error". @param {string} line */
function formatLogLine(line) {
  const record = parseLine(line);
  if (!record) return line;
  const level = Object.keys(PINO_LEVELS).find((k) => PINO_LEVELS[k] === levelOf(record)) ?? String(record.level);
  const context = [];
  if (record.code) context.push(`code=${record.code}`);
  const reqId = record.requestId ?? record.req?.id;
  if (reqId) context.push(`requestId=${reqId}`);
  if (record.req?.method) context.push(`${record.req.method} ${record.req.url}`);
  if (record.res?.statusCode) context.push(`status=${record.res.statusCode}`);
  const err =
    typeof record.err === 'string'
      ? record.err
        ? `: ${record.err}`
        : ''
      : record.err
        ? `: ${record.err.type ?? 'Error'}: ${record.err.message ?? ''}`
        : '';
  const problems = Array.isArray(record.problems) ? ` [${record.problems.join('; ')}]` : '';
  return `${level.toUpperCase()} ${record.msg ?? ''}${context.length ? ` (${context.join(', ')})` : ''}${err}${problems}`;
}

module.exports = { formatLogLine, levelOf, parseLine };
