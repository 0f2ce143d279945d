/**
 * The demo's workspace and user, by id: what the import (its default user) and the server's start
 * know of the demo without loading how it is built (builder.ts).
 */
export const DEMO_WORKSPACE_ID = 'demo';
export const DEMO_USER_ID = 'usr_demo';
