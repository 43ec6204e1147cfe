const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "500ms", "5s", "30m", "2h", "5d" (or a bare number of ms) → ms; null when it is none of these. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text);
  if (!match) return null;
  return Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']!);
}
