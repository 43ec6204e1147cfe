import fs from 'node:fs';
import path from 'node:path';

import { readWalkThrough } from '../../scripts/fresh/try-it.cjs';

const README = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');

// `npm run test:fresh` runs the walk-through for real; this keeps its shape readable without an engine.
describe('the README\'s "Try it" walk-through', () => {
  test('when it is read, then every call has the status its comment promises, from sign-up to the refused token', () => {
    const steps = readWalkThrough(README);
    expect(steps.flatMap((s) => s.expected)).toEqual([201, 201, 201, 200, 201, 200, 204, 401]);
  });

  test('when a paragraph makes more calls than its comment promises statuses, then reading it fails', () => {
    const broken = README.replace('# read it (public) → 200\n', '# read it (public)\n');
    expect(() => readWalkThrough(broken)).toThrow(/makes 1 curl calls but its comment promises 0 statuses/);
  });
});
