/**
 * The rule language of a resource's `rules`: comparisons of record fields, the caller
 * (`@auth.id`, `@auth.role`, `@auth.amr`) and, on writes, the request body
 * (`@request.body.<field>`) with literals (strings, numbers, booleans, `null`, lists for `in`),
 * joined by `&&`, `||`, `!` and parentheses. No regular expressions, no functions: what a rule
 * can say, a MongoDB filter can say. Every node keeps its position for the start-up errors.
 */

export type Literal = string | number | boolean | null;

export type Operand =
  | { kind: 'field'; path: string; at: number }
  | { kind: 'auth'; name: 'id' | 'role' | 'amr'; at: number }
  | { kind: 'body'; field: string; at: number }
  | { kind: 'literal'; value: Literal; at: number }
  | { kind: 'list'; values: Literal[]; at: number };

export type ComparisonOp = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'in';

export type RuleNode =
  | { kind: 'compare'; op: ComparisonOp; left: Operand; right: Operand; at: number }
  | { kind: 'and' | 'or'; items: RuleNode[]; at: number }
  | { kind: 'not'; item: RuleNode; at: number };

/** A rule that does not parse or check: the message says what, `at` where (0-based). */
export class RuleError extends Error {
  constructor(
    readonly detail: string,
    readonly at: number,
  ) {
    super(`${detail} (at position ${at + 1})`);
  }
}

type Token =
  | { t: 'op'; v: string; at: number }
  | { t: 'str'; v: string; at: number }
  | { t: 'num'; v: number; at: number }
  | { t: 'word'; v: string; at: number }
  | { t: 'end'; at: number };

const OPERATORS = ['&&', '||', '!=', '<=', '>=', '=', '<', '>', '!', '(', ')', '[', ']', ','];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (op) {
      tokens.push({ t: 'op', v: op, at: i });
      i += op.length;
      continue;
    }
    if (c === '"') {
      let value = '';
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j += 1) {
        if (text[j] === '\\') {
          j += 1;
          if (j >= text.length) break;
        }
        value += text[j];
      }
      if (j >= text.length) throw new RuleError('a string is not closed', i);
      tokens.push({ t: 'str', v: value, at: i });
      i = j + 1;
      continue;
    }
    const number = /^-?\d+(\.\d+)?/.exec(text.slice(i));
    if (number) {
      tokens.push({ t: 'num', v: Number(number[0]), at: i });
      i += number[0].length;
      continue;
    }
    const word = /^@?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*/.exec(text.slice(i));
    if (word) {
      tokens.push({ t: 'word', v: word[0], at: i });
      i += word[0].length;
      continue;
    }
    throw new RuleError(`unexpected "${c}"`, i);
  }
  tokens.push({ t: 'end', at: text.length });
  return tokens;
}

const COMPARISONS: readonly string[] = ['=', '!=', '<', '<=', '>', '>='];

/** Parses a rule expression; a RuleError names what is wrong and where. */
export function parseRule(text: string): RuleNode {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = () => tokens[pos]!;
  const next = () => tokens[pos++]!;
  const isOp = (v: string) => peek().t === 'op' && (peek() as { v: string }).v === v;
  const expect = (v: string) => {
    if (!isOp(v)) throw new RuleError(`expected "${v}"`, peek().at);
    next();
  };

  function or(): RuleNode {
    const first = and();
    const items = [first];
    while (isOp('||')) {
      next();
      items.push(and());
    }
    return items.length === 1 ? first : { kind: 'or', items, at: first.at };
  }
  function and(): RuleNode {
    const first = unary();
    const items = [first];
    while (isOp('&&')) {
      next();
      items.push(unary());
    }
    return items.length === 1 ? first : { kind: 'and', items, at: first.at };
  }
  function unary(): RuleNode {
    if (isOp('!')) {
      const at = next().at;
      return { kind: 'not', item: unary(), at };
    }
    if (isOp('(')) {
      next();
      const inner = or();
      expect(')');
      return inner;
    }
    return comparison();
  }
  function comparison(): RuleNode {
    const left = operand();
    const token = peek();
    let op: ComparisonOp;
    if (token.t === 'op' && COMPARISONS.includes(token.v)) op = token.v as ComparisonOp;
    else if (token.t === 'word' && token.v === 'in') op = 'in';
    else throw new RuleError('expected a comparison (=, !=, <, <=, >, >=, in)', token.at);
    next();
    const right = operand();
    return { kind: 'compare', op, left, right, at: left.at };
  }
  function literal(): Literal {
    const token = next();
    if (token.t === 'str') return token.v;
    if (token.t === 'num') return token.v;
    if (token.t === 'word' && (token.v === 'true' || token.v === 'false')) return token.v === 'true';
    if (token.t === 'word' && token.v === 'null') return null;
    throw new RuleError('expected a string, number, boolean or null', token.at);
  }
  function operand(): Operand {
    const token = peek();
    if (token.t === 'op' && token.v === '[') {
      next();
      const values: Literal[] = [];
      if (!isOp(']')) {
        values.push(literal());
        while (isOp(',')) {
          next();
          values.push(literal());
        }
      }
      expect(']');
      return { kind: 'list', values, at: token.at };
    }
    if (token.t === 'str' || token.t === 'num') return { kind: 'literal', value: literal(), at: token.at };
    if (token.t === 'word') {
      if (['true', 'false', 'null'].includes(token.v)) return { kind: 'literal', value: literal(), at: token.at };
      next();
      if (token.v.startsWith('@auth.')) {
        const name = token.v.slice('@auth.'.length);
        if (name !== 'id' && name !== 'role' && name !== 'amr') throw new RuleError(`@auth has id, role and amr, not ${name}`, token.at);
        return { kind: 'auth', name, at: token.at };
      }
      if (token.v.startsWith('@request.body.')) return { kind: 'body', field: token.v.slice('@request.body.'.length), at: token.at };
      if (token.v.startsWith('@'))
        throw new RuleError(`unknown ${token.v.split('.')[0]}: use @auth.<id|role|amr> or @request.body.<field>`, token.at);
      return { kind: 'field', path: token.v, at: token.at };
    }
    throw new RuleError('expected a field, @auth, @request.body or a value', token.at);
  }

  const rule = or();
  if (peek().t !== 'end') throw new RuleError('unexpected text after the rule', peek().at);
  return rule;
}
