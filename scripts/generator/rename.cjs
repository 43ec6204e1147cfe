// @ts-check
'use strict';
// Turns articles' source into another resource's: every spelling of "article" becomes the same
// spelling of the new name. Code (identifiers) takes camelCase and PascalCase; strings and comments
// take kebab-case next to paths and names ("/blog-posts", 'blog-posts') and words in prose
// ("a blog post"). For a one-word name the spellings agree, so only the prose differs.

/** @typedef {ReturnType<typeof import('./names.cjs').namesOf>} Names */

/**
 * Splits TypeScript or JSON text into code and text (strings, comments) segments, delimiters
 * included. `${…}` in a template string is code; a `/` after an operator starts a regex (code).
 * @param {string} source
 * @returns {Array<{ code: boolean, text: string }>}
 */
function segments(source) {
  const n = source.length;
  /** Per character: true in code, false in a string or comment. */
  const code = new Array(n).fill(true);
  const text = (from, to) => code.fill(false, from, to);
  /** For each open template string, the brace depth at which its `${` closes. */
  const templates = [];
  let depth = 0;
  let lastSignificant = '';
  let i = 0;
  /** Template text from `from` (its opening backtick or the `}` of a `${…}`) to the next `${` or its end. */
  const templateText = (from) => {
    while (i < n) {
      if (source[i] === '\\') i += 2;
      else if (source[i] === '`') {
        templates.pop();
        i++;
        break;
      } else if (source[i] === '$' && source[i + 1] === '{') {
        i += 2;
        depth++;
        break;
      } else i++;
    }
    text(from, Math.min(i, n));
  };
  while (i < n) {
    const c = source[i];
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end < 0 ? n : end;
      text(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      text(i, stop);
      i = stop;
    } else if (c === '/' && /^$|[(,=:[!&|?{};]/.test(lastSignificant)) {
      // A regex literal: code, read to its closing slash.
      let j = i + 1;
      let inClass = false;
      while (j < n && source[j] !== '\n') {
        if (source[j] === '\\') j += 2;
        else if (source[j] === '/' && !inClass) break;
        else {
          if (source[j] === '[') inClass = true;
          if (source[j] === ']') inClass = false;
          j++;
        }
      }
      i = j + 1;
      lastSignificant = 'x';
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < n && source[j] !== c && source[j] !== '\n') j += source[j] === '\\' ? 2 : 1;
      text(i, j + 1);
      i = j + 1;
      lastSignificant = 'x';
    } else if (c === '`') {
      templates.push(depth);
      const from = i++;
      templateText(from);
      lastSignificant = 'x';
    } else if (c === '}' && templates.length > 0 && depth - 1 === templates[templates.length - 1]) {
      depth--;
      const from = i++;
      templateText(from);
      lastSignificant = 'x';
    } else {
      if (c === '{') depth++;
      if (c === '}') depth--;
      if (!/\s/.test(c)) lastSignificant = /[A-Za-z0-9_$)\]]/.test(c) ? 'x' : c;
      i++;
    }
  }
  /** @type {Array<{ code: boolean, text: string }>} */
  const out = [];
  for (let k = 0; k < n; k++) {
    const last = out[out.length - 1];
    if (last && last.code === code[k]) last.text += source[k];
    else out.push({ code: code[k], text: source[k] });
  }
  return out;
}

const capitalize = (word) => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * @param {string} source  a file of services/articles
 * @param {Names} names  the new resource's names
 */
function renameInSource(source, names) {
  return segments(source)
    .map(({ code, text }) => renameInSegment(text, names, code))
    .join('');
}

/**
 * @param {string} text
 * @param {Names} names
 * @param {boolean} code
 */
function renameInSegment(text, names, code) {
  const prose = (before, after) => !code && /^$|[\s(]/.test(before) && /^$|[\s,;:!?)]|\.(\s|$)/.test(after);
  return (
    text
      // Builders and prose with the indefinite article: anArticle → aBook, "an article" → "a book".
      .replace(
        /\b(an|An)(Articles?)(?![a-z])/g,
        (_m, an, word) =>
          `${an[0] === 'A' ? capitalize(names.article) : names.article}${word.endsWith('s') ? names.pascalPlural : names.pascal}`,
      )
      .replace(/\b(an|An) (article)\b/g, (_m, an) => `${an[0] === 'A' ? capitalize(names.article) : names.article} ${names.human}`)
      .replace(/(?<![A-Z])ARTICLE(S?)(?![A-Z])/g, (_m, s) => (s ? names.upper : names.snake.toUpperCase()))
      .replace(/(?<![A-Z])Article(s?)(?![a-z])/g, (m, s, offset, all) => {
        const before = all.slice(Math.max(0, offset - 1), offset);
        const after = all.slice(offset + m.length, offset + m.length + 2);
        if (prose(before, after)) return capitalize(s ? names.humanPlural : names.human);
        return s ? names.pascalPlural : names.pascal;
      })
      .replace(/(?<![A-Za-z])article(s?)(?![a-z])/g, (m, s, offset, all) => {
        const before = all.slice(Math.max(0, offset - 1), offset);
        const after = all.slice(offset + m.length, offset + m.length + 2);
        if (after.startsWith('_')) return s ? names.plural.replace(/-/g, '_') : names.snake;
        if (code || /^[A-Z]/.test(after)) return s ? names.camelPlural : names.camel;
        if (prose(before, after)) return s ? names.humanPlural : names.human;
        return s ? names.plural : names.singular;
      })
  );
}

/** A path inside services/articles → the same path for the new resource. */
function renamePath(rel, names) {
  return rel.replace(/(?<![A-Za-z])article(s?)(?![a-z])/g, (_m, s) => (s ? names.plural : names.singular));
}

module.exports = { renameInSource, renamePath, segments };
