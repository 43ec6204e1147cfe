/** A small Dockerfile reader: instructions, stages, exec-form arrays and `--flags`. */

export interface Instruction {
  keyword: string;
  /** What follows the keyword and its flags. */
  args: string;
  flags: Record<string, string>;
  /** The exec (JSON array) form, when the instruction is written in it. */
  exec?: string[];
  line: number;
}

export interface Stage {
  index: number;
  name?: string;
  /** The image or stage it starts from, as written. */
  from: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** ARG instructions before the first FROM (usable in FROM lines). */
  globalArgs: Instruction[];
  stages: Stage[];
}

function splitFlags(rest: string): { flags: Record<string, string>; args: string } {
  const flags: Record<string, string> = {};
  let args = rest;
  for (;;) {
    const match = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(args);
    if (!match) break;
    flags[match[1] as string] = match[2] ?? 'true';
    args = args.slice(match[0].length);
  }
  return { flags, args };
}

function execForm(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined;
  try {
    const parsed: unknown = JSON.parse(args);
    return Array.isArray(parsed) && parsed.every((s) => typeof s === 'string') ? (parsed as string[]) : undefined;
  } catch {
    return undefined;
  }
}

export function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  const lines = text.split('\n');
  let pending = '';
  let startLine = 0;
  lines.forEach((rawLine, i) => {
    const line = rawLine.replace(/\r$/, '');
    if (/^\s*(#|$)/.test(line)) return; // comments (also inside a continued instruction), directives, blank lines
    if (pending === '') startLine = i + 1;
    const continued = /\\\s*$/.test(line);
    pending += (pending ? ' ' : '') + line.replace(/\\\s*$/, '').trim();
    if (continued) return;
    const match = /^(\S+)\s*(.*)$/.exec(pending) as RegExpExecArray;
    const keyword = (match[1] as string).toUpperCase();
    const { flags, args } = splitFlags(match[2] as string);
    instructions.push({ keyword, args, flags, exec: execForm(args), line: startLine });
    pending = '';
  });

  const globalArgs: Instruction[] = [];
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [from, as, name] = instruction.args.split(/\s+/);
      stages.push({ index: stages.length, from: from ?? '', name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword === 'ARG') globalArgs.push(instruction);
    } else {
      (stages[stages.length - 1] as Stage).instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
}

/** `$VAR`, `${VAR}`, `${VAR:-default}` and `${VAR:+alt}` against build arguments. */
export function substituteArgs(text: string, args: Record<string, string | undefined>): string {
  return text.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_w, braced, op, arg, bare) => {
    const value = args[(braced ?? bare) as string];
    if (op === '-') return value || (arg as string);
    if (op === '+') return value ? (arg as string) : '';
    return value ?? '';
  });
}

/** The stage and the stages it is built on, nearest first (a FROM naming an earlier stage). */
export function stageChain(dockerfile: Dockerfile, stage: Stage): Stage[] {
  const chain = [stage];
  let current = stage;
  for (;;) {
    const parent = dockerfile.stages.find((s) => s.index < current.index && s.name === current.from);
    if (!parent) return chain;
    chain.push(parent);
    current = parent;
  }
}

/** The last instruction of a kind that applies to a stage, inherited from the stages it is built on. */
export function effective(dockerfile: Dockerfile, stage: Stage, keyword: string): Instruction | undefined {
  for (const s of stageChain(dockerfile, stage)) {
    const found = s.instructions.filter((i) => i.keyword === keyword).pop();
    if (found) return found;
  }
  return undefined;
}

/** ENV of the final image (built-on stages first), with the build arguments substituted. */
export function finalEnvironment(dockerfile: Dockerfile, buildArgs: Record<string, string | undefined>): Record<string, string> {
  const final = dockerfile.stages[dockerfile.stages.length - 1];
  if (!final) return {};
  const env: Record<string, string> = {};
  const args = { ...buildArgs };
  for (const stage of stageChain(dockerfile, final).reverse()) {
    for (const instruction of stage.instructions.filter((i) => i.keyword === 'ARG')) {
      const [name, fallback] = instruction.args.split('=', 2) as [string, string | undefined];
      if (args[name] === undefined && fallback !== undefined) args[name] = fallback;
    }
    for (const instruction of stage.instructions.filter((i) => i.keyword === 'ENV')) {
      for (const match of instruction.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) {
        env[match[1] as string] = substituteArgs((match[2] as string).replace(/^"|"$/g, ''), { ...args, ...env });
      }
    }
  }
  return env;
}

/** Sources of a COPY/ADD (the last word is the destination). */
export function copySources(instruction: Instruction): string[] {
  const words = instruction.exec ?? instruction.args.split(/\s+/).filter(Boolean);
  return words.slice(0, -1);
}
