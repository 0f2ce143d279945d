/** Bearer tokens: only their sha256 is ever stored (contract §1). */
import { createHash, randomBytes } from 'node:crypto';

export function sha256Hex(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function generateToken(): string {
  return `ib_${randomBytes(24).toString('base64url')}`;
}
