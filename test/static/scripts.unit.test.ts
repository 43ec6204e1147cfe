import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The scripts are read and changed by people who did not write them: each file fits in one
 * reading (at most MAX_LINES lines), and every JavaScript file among them is in the program that
 * npm test's type-check step checks (scripts/tsconfig.json), so none escapes the type checker.
 */
const ROOT = path.resolve(__dirname, '../..');
const SCRIPTS = path.join(ROOT, 'scripts');
const MAX_LINES = 300;

function scriptFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'scripts'], { cwd: ROOT, encoding: 'utf8' });
  return out
    .split('\n')
    .filter((file) => file && !file.includes('node_modules/'))
    .filter((file) => existsSync(path.join(ROOT, file)));
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function typeCheckedFiles(): Set<string> {
  const configFile = path.join(SCRIPTS, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(configFile, (file) => ts.sys.readFile(file));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, SCRIPTS, undefined, configFile);
  return new Set(parsed.fileNames.map((file) => path.resolve(file)));
}

test(`every file under scripts/ has at most ${MAX_LINES} lines`, () => {
  const files = scriptFiles();
  expect(files.length).toBeGreaterThan(0);
  const tooLong = files
    .map((file) => ({ file, lines: lineCount(readFileSync(path.join(ROOT, file), 'utf8')) }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${file}: ${lines} lines`);
  expect(tooLong).toEqual([]);
});

test('every JavaScript file under scripts/ is type-checked by scripts/tsconfig.json', () => {
  const checked = typeCheckedFiles();
  const js = scriptFiles().filter((file) => /\.(c|m)?js$/.test(file));
  expect(js.length).toBeGreaterThan(0);
  expect(js.filter((file) => !checked.has(path.join(ROOT, file)))).toEqual([]);
});

test('a file over the limit is caught, a last line without its newline counted', () => {
  expect(lineCount('a\n'.repeat(MAX_LINES))).toBe(MAX_LINES);
  expect(lineCount(`${'a\n'.repeat(MAX_LINES)}b`)).toBe(MAX_LINES + 1);
});
