/** A database location for people and logs: a URL loses its password; a file path stays as it is. */
export function redact(location: string): string {
  try {
    const url = new URL(location);
    if (url.password) url.password = '***';
    return url.protocol === 'file:' ? location : url.toString();
  } catch {
    return location.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  }
}
