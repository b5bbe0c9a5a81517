/** Parses a Cookie header into name → value (first occurrence wins). */
export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  if (!header) return cookies;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const name = pair.slice(0, eq).trim();
    if (!name || name in cookies) continue;
    cookies[name] = pair.slice(eq + 1).trim();
  }
  return cookies;
}

export interface CookieOptions {
  maxAge: number;
  secure: boolean;
}

/** The session cookie: HttpOnly and SameSite=Lax so scripts and cross-site posts never carry it. */
export function sessionCookie(value: string, { maxAge, secure }: CookieOptions): string {
  return [
    `session=${value}`,
    'Path=/',
    `Max-Age=${maxAge}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', { maxAge: 0, secure });
}
