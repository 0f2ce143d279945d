/**
 * Report grants: bearer tokens that can do one thing — GET one workspace's context report
 * (`/api/workspace/{id}/debug/context`, read-only). The live agent's MCP server reads its own
 * report with one (docs/agent.md): the agent's sandbox never sees the database, and a sign-in
 * token would let it read and write everything its user can.
 *
 * Like sign-in tokens they are kept only as their sha256, but in memory, never in the database:
 * one is made when a workspace's agent process starts and dropped when it ends, and the process
 * dies with the server anyway. A grant is no sign-in: it sets no cookie, lists no workspace,
 * reads no message and runs no turn.
 */
import { generateToken, sha256Hex } from './auth';

export interface Grant {
  workspaceId: string;
}

export class ReportGrants {
  private readonly byHash = new Map<string, Grant>();

  /**
   * `current`: the session the workspace's agent is working in now, when that is one session
   * (a report asked for without a session is about it).
   */
  constructor(private readonly current: (workspaceId: string) => string | undefined = () => undefined) {}

  /** A new token for a workspace's report, and how to drop it. */
  issue(workspaceId: string): { token: string; revoke: () => void } {
    const token = generateToken();
    const hash = sha256Hex(token);
    this.byHash.set(hash, { workspaceId });
    return { token, revoke: () => void this.byHash.delete(hash) };
  }

  find(token: string): Grant | null {
    return this.byHash.get(sha256Hex(token)) ?? null;
  }

  /** The session a grant's report is about when it names none; undefined: the most recently active. */
  sessionFor(workspaceId: string): string | undefined {
    return this.current(workspaceId);
  }

  get size(): number {
    return this.byHash.size;
  }
}
