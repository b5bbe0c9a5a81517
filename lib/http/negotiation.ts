/**
 * Content negotiation of the pages that are also ActivityPub objects (/e/{pid}, /u/{name}: lib/routes.ts
 * `negotiated`): an Accept that asks for `application/activity+json` or `application/ld+json` (with
 * the ActivityStreams profile or none) at least as much as for `text/html` gets the JSON-LD object;
 * anything else (a browser's Accept, none at all) gets the page. Why "at least as much": Mastodon
 * sends `application/activity+json, application/ld+json; profile=…, text/html;q=0.1`, a browser
 * `text/html,…,*\/*;q=0.8`. Read by the fast path and the page handlers alike.
 */
export function wantsActivityJson(accept: string | undefined): boolean {
  if (!accept?.includes('json')) return false;
  let activity = 0;
  let page = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim());
    const q = qualityOf(params);
    const media = type.toLowerCase();
    if (media === 'application/activity+json') activity = Math.max(activity, q);
    else if (media === 'application/ld+json' && profileFits(params)) activity = Math.max(activity, q);
    else if (media === 'text/html') page = Math.max(page, q);
  }
  return activity > 0 && activity >= page;
}

function qualityOf(params: string[]): number {
  const q = params.find((param) => /^q=/i.test(param));
  const value = q ? Number(q.slice(2)) : 1;
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

function profileFits(params: string[]): boolean {
  const profile = params.find((param) => /^profile=/i.test(param));
  return !profile || profile.includes('https://www.w3.org/ns/activitystreams');
}
