/**
 * A workspace agent's private state folder by its workspace's id, and the server's environment
 * without investibook's own secrets: what confinement.ts and every runtime's write side need
 * (a leaf module, so a runtime's folder can use them without importing confinement, which
 * imports the registry of runtimes).
 */
import { createHash } from 'node:crypto';

/** A folder name for a workspace id (ids are any text): readable prefix, unique hash. */
export function workspaceKey(id: string): string {
  const readable = id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
  return `${readable}-${createHash('sha256').update(id).digest('hex').slice(0, 10)}`;
}

/**
 * Variables that would hand the agent investibook's database: its own (`INVESTIBOOK_*`: the demo
 * token, database URLs), libpq's (`PG*`: host, user, password, service file) and the common
 * `DATABASE_URL`. The sandbox's network reaches no database server anyway (only its model
 * provider and its own report); without the sandbox (INVESTIBOOK_AGENT_SANDBOX=off) one stays
 * reachable over TCP: without credentials.
 */
const SECRET = /^(INVESTIBOOK_|PG[A-Z]|DATABASE_URL$)/;

/** The agent's environment, minus what would give it investibook's own data. */
export function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !SECRET.test(key)));
}
