/** The path as the log writes it: a private feed's token is a password, so /n/… stays without it. */
export function loggedPath(pathname: string): string {
  return pathname.startsWith('/n/') ? '/n/…' : pathname;
}
