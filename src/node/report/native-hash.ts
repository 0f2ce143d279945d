/**
 * The core's key hash on node:crypto: the same SHA-256, cut to the same 128 bits, computed natively
 * (the core's own, @noble/hashes in JavaScript, runs cold in a fresh CLI process). Installed once
 * by the report service, before any report is made.
 */
import { createHash } from 'node:crypto';

/** SHA-256 of a text's UTF-8 (a lone surrogate as U+FFFD, as TextEncoder writes it), first 128 bits in hex. */
export const nativeKeyHash = (text: string): string =>
  createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);
