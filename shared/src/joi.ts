import BaseJoi from 'joi';

/** Code points in `value`: a surrogate pair (an emoji, say) is one character, as JSON Schema counts. */
function codePoints(value: string): number {
  let count = value.length;
  for (let i = 0; i < value.length - 1; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

function compare(length: number, limit: number, operator: string): boolean {
  switch (operator) {
    case '=':
      return length === limit;
    case '>=':
      return length >= limit;
    default:
      return length <= limit;
  }
}

type LengthRule = 'min' | 'max' | 'length';

/** What an override uses of joi's extension API (public, documented, but not in its types). */
interface StringOverride {
  $_parent(method: LengthRule, ...args: unknown[]): BaseJoi.StringSchema;
  $_addRule(options: BaseJoi.AddRuleOptions & { method: string; operator: string }): BaseJoi.StringSchema;
}
const OPERATORS: Record<LengthRule, string> = { min: '>=', max: '<=', length: '=' };

/**
 * joi's `min`, `max` and `length` without an encoding, counting code points instead of UTF-16
 * units: the API docs say `minLength`/`maxLength`, which JSON Schema counts in code points, and a
 * client counts characters. With an encoding (`max(72, 'utf8')`) they count bytes, as in joi.
 * The rules keep their names, so errors (`string.min` …) and descriptions are joi's own.
 */
const codePointLengths: BaseJoi.Extension = {
  type: 'string',
  base: BaseJoi.string(),
  rules: {
    codePointLength: {
      method: false,
      args: [
        { name: 'limit', ref: true, assert: (value) => Number.isSafeInteger(value) && (value as number) >= 0, message: 'must be a positive integer' },
        'encoding',
      ],
      validate(value: string, helpers, { limit }, { name, operator, args }) {
        if (compare(codePoints(value), limit as number, operator as string)) return value;
        return helpers.error(`string.${name}`, { limit: args.limit, value });
      },
    },
  },
  overrides: Object.fromEntries(
    (Object.keys(OPERATORS) as LengthRule[]).map((name) => [
      name,
      function (this: StringOverride, limit: number | BaseJoi.Reference, encoding?: string) {
        if (encoding) return this.$_parent(name, limit, encoding);
        return this.$_addRule({ name, method: 'codePointLength', args: { limit, encoding: undefined }, operator: OPERATORS[name] });
      },
    ]),
  ),
};

/**
 * joi for what clients send: the same API, with string lengths in characters (code points) like
 * the API docs. Request schemas are built with this one (a lint rule keeps `joi` itself out of them).
 */
export const Joi: BaseJoi.Root = BaseJoi.extend(codePointLengths);
