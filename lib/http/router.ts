/** A route table lookup: literal segments, `:name` parameters and a trailing `*` (the rest, still encoded). */
export interface RouteShape {
  method: string;
  path: string;
}

export type Match<R> =
  | { kind: 'found'; route: R; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

export function createRouter<R extends RouteShape>(routes: readonly R[]) {
  const compiled = routes.map((route) => ({ route, segments: route.path.split('/').slice(1) }));

  return {
    match(method: string, pathname: string): Match<R> {
      const parts = pathname.split('/').slice(1);
      const allow = new Set<string>();
      for (const { route, segments } of compiled) {
        const params = matchSegments(segments, parts);
        if (!params) continue;
        if (route.method === method || (method === 'HEAD' && route.method === 'GET')) {
          return { kind: 'found', route, params };
        }
        allow.add(route.method);
        if (route.method === 'GET') allow.add('HEAD');
      }
      return allow.size ? { kind: 'method_not_allowed', allow: [...allow].sort() } : { kind: 'not_found' };
    },
  };
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment === '*' && i === segments.length - 1) {
      params['*'] = parts.slice(i).join('/');
      return params;
    }
    const part = parts[i];
    if (part === undefined) return undefined;
    if (segment.startsWith(':')) {
      const decoded = safeDecode(part);
      if (!decoded) return undefined;
      params[segment.slice(1)] = decoded;
    } else if (segment !== part) {
      return undefined;
    }
  }
  return segments.length === parts.length ? params : undefined;
}

function safeDecode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}
