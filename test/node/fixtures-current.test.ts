/**
 * The web tests' MSW fixtures must be what the engine answers now: regenerated here and compared
 * with what is checked in (only the snapshot id, a digest of file times, may differ).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/node/project';
import { buildApiFixtures } from '../support/api-fixtures';

const normal = (value: unknown) => JSON.parse(JSON.stringify(value).replace(/snap_[0-9a-f]{24}/g, 'snap_*')) as unknown;

describe('MSW fixtures', () => {
  it('are what the API answers on the demo data now (npm run fixtures regenerates them)', async () => {
    const fresh = await buildApiFixtures();
    for (const [name, body] of Object.entries(fresh)) {
      const checkedIn: unknown = JSON.parse(readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', name), 'utf8'));
      expect(normal(checkedIn), `${name} is stale: run npm run fixtures`).toEqual(normal(body));
    }
  });
});
