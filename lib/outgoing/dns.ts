import type { LookupAddress } from 'node:dns';
import { Resolver as DnsResolver } from 'node:dns/promises';

/** Resolves a host name to every address it has (the guard checks them all); `signal` cancels it. */
export type Resolver = (hostname: string, signal?: AbortSignal) => Promise<LookupAddress[]>;

export class DnsTimeout extends Error {
  readonly code = 'ETIMEOUT';
  constructor(hostname: string, ms: number) {
    super(`DNS for ${hostname}: no answer within ${ms / 1000} s`);
    this.name = 'DnsTimeout';
  }
}

export interface DnsOptions {
  timeoutMs?: number;
  servers?: readonly string[];
}

/** RFC 6761: localhost names are loopback, without asking anyone (the guard then refuses them). */
const localhostName = /(^|\.)localhost\.?$/i;

/**
 * The preview fetcher's DNS: A and AAAA in parallel through c-ares (a node:dns Resolver per lookup,
 * so cancel() stops exactly that one), with our own time limit. Why not dns.lookup: it runs on
 * libuv's small thread pool with no time limit and no cancel, so a few names that never answer held
 * every slot.
 */
export function createDnsResolver(options: DnsOptions = {}): Resolver {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return async (hostname, signal) => {
    if (localhostName.test(hostname))
      return [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
    signal?.throwIfAborted();
    const resolver = new DnsResolver({ timeout: Math.max(100, Math.round(timeoutMs / 2)), tries: 2 });
    if (options.servers) resolver.setServers([...options.servers]);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      resolver.cancel();
    }, timeoutMs);
    const cancel = () => resolver.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
      if (timedOut) throw new DnsTimeout(hostname, timeoutMs);
      signal?.throwIfAborted();
      const addresses: LookupAddress[] = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      if (addresses.length > 0) return addresses;
      const reasons = [v4, v6].flatMap((r) => (r.status === 'rejected' ? [r.reason as NodeJS.ErrnoException] : []));
      if (reasons.some((r) => r.code === 'ETIMEOUT')) throw new DnsTimeout(hostname, timeoutMs);
      throw reasons[0] ?? new Error(`${hostname} has no address`);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
    }
  };
}
