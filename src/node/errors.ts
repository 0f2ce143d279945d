/**
 * Typed errors thrown below the edges. The HTTP error handler and the CLI's main are the only
 * places that turn them into statuses and exit codes.
 */
export type ErrorKind = 'usage' | 'not_found' | 'unauthorized' | 'invalid' | 'conflict' | 'gone' | 'failed';

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AppError';
  }
}

export const notFound = (code: string, message: string): AppError => new AppError('not_found', code, message);

export const usageError = (message: string): AppError => new AppError('usage', 'usage', message);

export const failed = (code: string, message: string, cause?: unknown): AppError =>
  new AppError('failed', code, message, { cause });
