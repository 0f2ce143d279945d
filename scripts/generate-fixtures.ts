/**
 * Regenerates test/fixtures/*.json (the web app's MSW fixtures) from the real engine on the demo
 * data. Run: npm run fixtures
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApiFixtures } from '../test/support/api-fixtures';

const fixtures = await buildApiFixtures();
for (const [name, body] of Object.entries(fixtures)) {
  writeFileSync(join('test/fixtures', name), `${JSON.stringify(body, null, 2)}\n`);
}
console.log(`wrote ${Object.keys(fixtures).length} fixtures to test/fixtures`);
