import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../errors.ts';
import { createSemaphore, SlotRefused, type QueueBound, type Semaphore } from '../host/semaphore.ts';
import { slotLimits } from '../host/machine-slots.ts';

/*
 * scrypt at OWASP's strength (N=2^17, r=8, p=1) in a PHC-style string:
 *   $scrypt$ln=17,r=8,p=1$<salt base64>$<hash base64>
 * The parameters live in the string, so raising BOARD_SCRYPT_LOGN later locks nobody out.
 */
const keyLength = 32;
// Each hash holds 128 MiB at ln=17: two at a time on the machine (lib/host/machine-slots.ts), so a burst of logins cannot exhaust memory.

interface HashJob {
  resolve(key: Buffer): void;
  reject(err: Error): void;
}

/**
 * scrypt runs on dedicated worker threads at a lower scheduling priority (lib/accounts/hash-worker.mjs),
 * not on libuv's pool: a burst of logins then neither starves reads of CPU nor holds the pool
 * threads that file access and image work need. The machine's hashing slots keep at most two busy.
 */
class HashWorkers {
  private idle: Worker[] = [];
  private jobs = new Map<Worker, HashJob>();

  run(password: string, salt: Buffer, N: number, r: number, p: number, maxmem: number): Promise<Buffer> {
    const worker = this.idle.pop() ?? this.spawn();
    worker.ref();
    return new Promise((resolve, reject) => {
      this.jobs.set(worker, { resolve, reject });
      worker.postMessage({ password, salt, keyLength, N, r, p, maxmem });
    });
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./hash-worker.mjs', import.meta.url), { execArgv: [] });
    worker.on('message', (message: { key?: Uint8Array; error?: string }) => {
      const job = this.jobs.get(worker);
      this.jobs.delete(worker);
      worker.unref();
      this.idle.push(worker);
      if (message.key) job?.resolve(Buffer.from(message.key));
      else job?.reject(new Error(`scrypt failed: ${message.error}`));
    });
    worker.on('error', (err) => {
      // A dead worker fails its job and is not reused; the next hash starts a fresh one.
      this.idle = this.idle.filter((w) => w !== worker);
      const job = this.jobs.get(worker);
      this.jobs.delete(worker);
      worker.unref();
      job?.reject(err);
    });
    return worker;
  }
}

/** One pool per process: a thread costs more to start than a hash at the tests' cost. */
const hashWorkers = new HashWorkers();

/**
 * The hashing line's bound (503 auth.busy): 32 waiting is about five seconds of work for two
 * hashers at the default cost, and a request that has waited 5 s is answered. Why: without a bound,
 * a dozen addresses within their limits kept an honest login waiting seconds. BOARD_LIMITS scales
 * it; 0 lifts it.
 */
export function hashQueueBound(limitsFactor: number): QueueBound | undefined {
  return limitsFactor === 0 ? undefined : { maxWaiting: Math.max(1, Math.round(32 * limitsFactor)), maxWaitMs: 5_000 };
}

/**
 * The registrations' own line in front of the hashing line (one registration hashes at a time),
 * holding about as much work. Why a line of their own: registrations beyond it are refused before
 * any hashing and never take the places members need to log in. BOARD_LIMITS scales it; 0 lifts it.
 */
export function registrationQueueBound(limitsFactor: number): QueueBound | undefined {
  return limitsFactor === 0 ? undefined : { maxWaiting: Math.max(1, Math.round(16 * limitsFactor)), maxWaitMs: 5_000 };
}

/** Seconds a refused caller is asked to wait: about what the line needs to drain. */
const busyRetrySeconds = 5;

interface Hasher {
  slot: Semaphore;
  registrationSlot: Semaphore;
  workers: HashWorkers;
}

export interface RegistrationLine {
  bound: QueueBound | undefined;
}

const registrationsBusy = () =>
  new ApiError(503, 'auth.busy', {
    headers: { 'Retry-After': String(busyRetrySeconds) },
    limit: 'brake/registrations',
    message:
      'Gerade registrieren sich sehr viele neue Konten auf einmal. Bitte versuche es in ein paar Sekunden noch einmal.',
  });

async function derive(
  hasher: Hasher,
  password: string,
  salt: Buffer,
  logN: number,
  r: number,
  p: number,
  signal?: AbortSignal,
  bound?: QueueBound,
): Promise<Buffer> {
  const N = 2 ** logN;
  const maxmem = 128 * N * r * p + 32 * 1024 * 1024;
  try {
    return await hasher.slot(() => hasher.workers.run(password.normalize('NFC'), salt, N, r, p, maxmem), signal, bound);
  } catch (err) {
    if (err instanceof SlotRefused)
      throw new ApiError(503, 'auth.busy', {
        headers: { 'Retry-After': String(busyRetrySeconds) },
        limit: 'brake/hashing',
      });
    throw err;
  }
}

async function hashPassword(
  hasher: Hasher,
  password: string,
  logN: number,
  signal?: AbortSignal,
  bound?: QueueBound,
  registration?: RegistrationLine,
): Promise<string> {
  if (registration) {
    try {
      return await hasher.registrationSlot(
        () => hashPassword(hasher, password, logN, signal, bound),
        signal,
        registration.bound,
      );
    } catch (err) {
      throw err instanceof SlotRefused ? registrationsBusy() : err;
    }
  }
  const salt = randomBytes(16);
  const key = await derive(hasher, password, salt, logN, 8, 1, signal, bound);
  return `$scrypt$ln=${logN},r=8,p=1$${salt.toString('base64')}$${key.toString('base64')}`;
}

async function verifyPassword(
  hasher: Hasher,
  password: string,
  stored: string,
  signal?: AbortSignal,
  bound?: QueueBound,
): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const key = await derive(hasher, password, parsed.salt, parsed.logN, parsed.r, parsed.p, signal, bound);
  return timingSafeEqual(key, parsed.key);
}

/*
 * Bounds for parameters read back from a stored hash. Node's scrypt treats 0 as "use the
 * default", so r=0 would quietly verify like r=8; and a huge cost in a damaged row must not
 * make one login allocate gigabytes. Anything outside is a malformed hash: it never verifies.
 */
function parseHash(stored: string) {
  const match = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/.exec(
    stored,
  );
  if (!match) return undefined;
  const [logN, r, p] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  if (!within(logN, 10, 20) || !within(r, 1, 16) || !within(p, 1, 4)) return undefined;
  const salt = Buffer.from(match[4]!, 'base64');
  const key = Buffer.from(match[5]!, 'base64');
  return key.length === keyLength && salt.length >= 8 ? { logN, r, p, salt, key } : undefined;
}

const within = (value: number, min: number, max: number) => value >= min && value <= max;

/**
 * How the request handlers hash and check passwords: scrypt (createScryptPasswords), built by
 * createApp. Why a seam: the races with a login in flight (a ban, a password change, a reset
 * committing while its hash runs) are tested by holding a request between its check and its write.
 */
export interface Passwords {
  /**
   * Hashes with a fresh salt on a hashing thread. `signal`: a caller that went away while queued
   * costs no hashing. `bound`: hashQueueBound's. `registration`: a new account's hash waits in the
   * registrations' own line first. A full line or a long wait is 503 auth.busy.
   */
  hash(
    password: string,
    logN: number,
    signal?: AbortSignal,
    bound?: QueueBound,
    registration?: RegistrationLine,
  ): Promise<string>;
  /** Checks a password against a stored hash in constant time; false for a malformed hash. */
  verify(password: string, stored: string, signal?: AbortSignal, bound?: QueueBound): Promise<boolean>;
  /**
   * A hash of a random password at the given cost, made once per cost: login for an unknown user
   * verifies against it, so it spends the same work as a wrong password and timing does not reveal
   * which names exist.
   */
  dummyHash(logN: number): Promise<string>;
  load(): { running: number; waiting: number };
}

export function createScryptPasswords(
  slot: Semaphore = createSemaphore(slotLimits.hash),
  registrationSlot: Semaphore = createSemaphore(slotLimits.registration),
): Passwords {
  const hasher: Hasher = { slot, registrationSlot, workers: hashWorkers };
  const dummyHashes = new Map<number, Promise<string>>();
  return {
    hash: (password, logN, signal, bound, registration) =>
      hashPassword(hasher, password, logN, signal, bound, registration),
    verify: (password, stored, signal, bound) => verifyPassword(hasher, password, stored, signal, bound),
    dummyHash(logN) {
      let hash = dummyHashes.get(logN);
      if (!hash) {
        hash = hashPassword(hasher, randomBytes(16).toString('hex'), logN);
        dummyHashes.set(logN, hash);
      }
      return hash;
    },
    load: () => slot.load(),
  };
}
