/**
 * `.dockerignore` matching as the builder does it: patterns relative to the context root, `*` and
 * `?` within one path segment, `**` across segments, a match on a folder excludes what is inside,
 * `!` re-includes, and the last matching line wins.
 */

interface Rule {
  negated: boolean;
  pattern: string;
  regex: RegExp;
}

function toRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*' && pattern[i + 1] === '*') {
      i++;
      if (pattern[i + 1] === '/') {
        i++;
        re += '(?:.*/)?';
      } else {
        re += '.*';
      }
    } else if (c === '*') {
      re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '[') {
      const end = pattern.indexOf(']', i);
      re += end > i ? pattern.slice(i, end + 1) : '\\[';
      if (end > i) i = end;
    } else {
      re += c.replace(/[.+^${}()|\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}(?:/.*)?$`);
}

export function parseDockerignore(text: string): Rule[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const pattern = (negated ? line.slice(1) : line).trim().replace(/^\/+/, '').replace(/\/+$/, '').replace(/^\.\//, '');
      return { negated, pattern, regex: toRegex(pattern) };
    });
}

/** Whether a path (relative to the context, with `/`) stays out of the build context. */
export function isIgnored(rules: Rule[], relPath: string): boolean {
  const target = relPath.replace(/^\.\//, '');
  let ignored = false;
  for (const rule of rules) {
    if (rule.regex.test(target)) ignored = !rule.negated;
  }
  return ignored;
}
