/**
 * Compose's variable interpolation ($$, $VAR, ${VAR}, ${VAR:-default}, ${VAR-default},
 * ${VAR:?error}, ${VAR?error}, ${VAR:+alt}, ${VAR+alt}), enough to check the compose file
 * without a container engine.
 */

export type Operator = '' | ':-' | '-' | ':?' | '?' | ':+' | '+';

export interface VariableUse {
  name: string;
  operator: Operator;
  argument: string;
}

export type Environment = Record<string, string | undefined>;

const REFERENCE = /\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])((?:[^{}]|\{[^{}]*\})*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

export class MissingVariableError extends Error {}

/** Every variable a string reads, with how it reads it. */
export function variablesIn(text: string): VariableUse[] {
  const uses: VariableUse[] = [];
  for (const match of text.matchAll(REFERENCE)) {
    if (match[1]) continue;
    const name = match[2] ?? match[5];
    if (!name) continue;
    const argument = match[4] ?? '';
    uses.push({ name, operator: (match[3] ?? '') as Operator, argument });
    uses.push(...variablesIn(argument));
  }
  return uses;
}

/** Substitutes like compose does; a missing required variable throws, as `docker compose` fails. */
export function interpolate(text: string, env: Environment): string {
  return text.replace(REFERENCE, (_whole, dollar?: string, braced?: string, op?: string, arg?: string, bare?: string) => {
    if (dollar) return '$';
    const name = (braced ?? bare) as string;
    const value = env[name];
    const unset = value === undefined;
    const empty = unset || value === '';
    const argument = () => interpolate(arg ?? '', env);
    switch ((op ?? '') as Operator) {
      case '':
        return value ?? '';
      case ':-':
        return empty ? argument() : (value as string);
      case '-':
        return unset ? argument() : (value as string);
      case ':?':
      case '?':
        if (op === ':?' ? empty : unset) throw new MissingVariableError(`${name}: ${argument() || 'required'}`);
        return value as string;
      case ':+':
        return empty ? '' : argument();
      case '+':
        return unset ? '' : argument();
    }
  });
}

/** Interpolates every string inside a parsed YAML document (keys stay as they are, as in compose). */
export function interpolateDocument<T>(doc: T, env: Environment): T {
  if (typeof doc === 'string') return interpolate(doc, env) as T;
  if (Array.isArray(doc)) return doc.map((item: unknown) => interpolateDocument(item, env)) as T;
  if (doc && typeof doc === 'object') {
    return Object.fromEntries(Object.entries(doc).map(([key, value]) => [key, interpolateDocument(value, env)])) as T;
  }
  return doc;
}

/**
 * A stand-in for the operator's `.env`: a distinct value of 32+ characters for every variable that
 * has no default, so that length rules pass and "two secrets must differ" rules still see two.
 */
export function stubEnvironment(uses: VariableUse[]): Environment {
  const env: Environment = {};
  for (const use of uses) {
    if (use.operator === ':-' || use.operator === '-') continue;
    env[use.name] = `${use.name.toLowerCase().replace(/_/g, '-')}-stub-value-for-static-checks-0123456789`;
  }
  return env;
}
