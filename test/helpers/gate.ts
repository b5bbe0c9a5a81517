import assert from 'node:assert/strict';

/** A request held at a gate, until the test lets it go on. */
export interface HeldRequest {
  /**
   * Settles once `request` waits at the gate; fails if it answered before getting there (so a test
   * on code that answers early fails instead of waiting for ever).
   */
  reachedBy(request: Promise<{ status: number; text: string }>): Promise<void>;
  release(): void;
}

/**
 * Holds for a service that tests wrap (passwords, images), for the races of a request in flight
 * (docs/SECURITY.md "Races with a request in flight"): the wrapper awaits `pass(kind)` after its
 * real work; `holdNext(kind)` makes the next such call wait there until `release()`. Every other
 * call passes through. Why a gate and not a sleep: the test decides the order of events, so it
 * proves the same thing on any machine.
 */
export function callGate<K extends string>(kinds: readonly K[]) {
  const holds = new Map<K, { arrive(): void; released: Promise<void> }[]>(kinds.map((kind) => [kind, []]));
  const releases = new Set<() => void>();
  return {
    async pass(kind: K): Promise<void> {
      const hold = holds.get(kind)!.shift();
      if (!hold) return;
      hold.arrive();
      await hold.released;
    },
    holdNext(kind: K): HeldRequest {
      let arrive!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => {
        arrive = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      releases.add(release);
      holds.get(kind)!.push({ arrive, released });
      let arrived = false;
      void reached.then(() => {
        arrived = true;
      });
      const reachedBy = (request: Promise<{ status: number; text: string }>) =>
        Promise.race([
          reached,
          request.then((answer) => {
            if (!arrived) assert.fail(`answered before it reached the gate: ${answer.status} ${answer.text}`);
          }),
        ]);
      return { reachedBy, release };
    },
    /** After each test, so that a failed one leaves no request held and no hold waiting for the next. */
    releaseAll(): void {
      for (const waiting of holds.values()) waiting.length = 0;
      for (const release of releases) release();
      releases.clear();
    },
  };
}

/**
 * A gate after some methods of one of createApp's services (passwords, images, passkey checks):
 * `wrap` gives the service with each named method running the real one, then waiting at the gate
 * under its own name (`holdNext('verify')`); the other methods stay the service's own.
 */
export function gateAfter<S extends object, K extends keyof S & string>(
  methods: readonly K[],
): {
  wrap: (service: S) => S;
  holdNext(method: K): HeldRequest;
  releaseAll(): void;
} {
  const gate = callGate<K>(methods);
  return {
    wrap(service) {
      const wrapped: S = { ...service };
      for (const method of methods) {
        const real = service[method] as (...args: unknown[]) => Promise<unknown>;
        const gated = async (...args: unknown[]) => {
          const result = await real.apply(service, args);
          await gate.pass(method);
          return result;
        };
        wrapped[method] = gated as S[K];
      }
      return wrapped;
    },
    holdNext: gate.holdNext,
    releaseAll: gate.releaseAll,
  };
}
