/**
 * `node build/node/seed-demo.mjs DB_PATH TOKEN`: seeds the demo into a new SQLite database with
 * the compiled programs' code, as `npm start` (the built server) seeds a user's demo — so its
 * stored analyses carry the build's version (report/stored-analyses.ts) and the built CLI reads
 * them, where a demo seeded from the sources (tsx) would be analysed again at every report.
 * Checkout-only (the bench's demo, bench/start.ts); prints `{"root": …}` on success.
 */
import { seedDemoDatabase } from './builder';

const [dbPath, token] = process.argv.slice(2);
if (!dbPath || !token) {
  process.stderr.write('usage: node build/node/seed-demo.mjs DB_PATH TOKEN\n');
  process.exit(2);
}
const { root } = await seedDemoDatabase(dbPath, token);
process.stdout.write(`${JSON.stringify({ root })}\n`);
