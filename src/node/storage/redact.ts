/**
 * A database location for people and logs: a URL loses its password — in its user part or in
 * its query (`?password=`, `?sslpassword=`, which node-postgres honours); a file path stays.
 */
const SECRET_PARAMS = /^(password|sslpassword|sslkey)$/i;

export function redact(location: string): string {
  try {
    const url = new URL(location);
    if (url.protocol === 'file:') return location;
    if (url.password) url.password = '***';
    for (const key of [...url.searchParams.keys()]) if (SECRET_PARAMS.test(key)) url.searchParams.set(key, '***');
    return url.toString();
  } catch {
    return location
      .replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')
      .replace(/([?&](?:password|sslpassword|sslkey)=)[^&]*/gi, '$1***');
  }
}
