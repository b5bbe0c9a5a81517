import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLoopbackAddress, parseCidr } from './ip/ranges.ts';

/**
 * The server's settings, read once from the environment; what each means, its default and its
 * bounds: docs/OPERATIONS.md "Settings".
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly dbPath: string;
  readonly mediaDir: string;
  readonly webDir: string;
  readonly origin: string;
  readonly trustProxy: boolean;
  readonly torExitsFile: string;
  readonly maxUpload: number;
  readonly previewEnabled: boolean;
  readonly pushEnabled: boolean;
  readonly previewAllow: readonly string[];
  readonly previewPorts: readonly number[];
  readonly youtubeOembed: string;
  readonly asnDb: string;
  readonly scryptLogN: number;
  readonly notifyUrl: string;
  readonly limitsFactor: number;
  readonly newAccountSeconds: number;
  readonly contact: string;
  readonly metrics: { readonly port: number; readonly host: string } | undefined;
  readonly registration: RegistrationMode;
  readonly registrationQuestion: string;
  readonly registrationSurge: { readonly accounts: number; readonly windowSeconds: number };
  readonly pow: number;
  readonly loginPow: boolean;
  readonly workers: number;
  readonly litestream: boolean;
  readonly diskLowBytes: number;
  readonly impressionBeacon: boolean;
  /**
   * BOARD_FEDERATION: off (nothing new answers, nothing is sent), allowlist (only instances an
   * operator or moderator allowed) or open (all but blocked instances); lib/federation/.
   */
  readonly federation: FederationMode;
  readonly federationName: string;
}

export class ConfigError extends Error {}

const projectRoot = resolve(fileURLToPath(new URL('..', import.meta.url)));
/** The IP-to-ASN data set installed with the board (npm package @ip-location-db/asn, CC BY 4.0). */
const bundledAsnDb = join(projectRoot, 'node_modules', '@ip-location-db', 'asn');

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const port = integerSetting(env, 'PORT', 8080, 0, 65535);
  const dataDir = resolve(setting(env, 'BOARD_DATA', './data'));
  const origin = originSetting(env.BOARD_ORIGIN || `http://localhost:${port}`);
  const notifyUrl = setting(env, 'BOARD_NOTIFY_URL', '');
  return Object.freeze({
    port,
    host: setting(env, 'HOST', '127.0.0.1'),
    dataDir,
    dbPath: join(dataDir, 'board.db'),
    mediaDir: join(dataDir, 'media'),
    webDir: join(projectRoot, 'web'),
    origin,
    trustProxy: flagSetting(env, 'BOARD_TRUST_PROXY', false),
    torExitsFile: resolve(setting(env, 'BOARD_TOR_EXITS', join(dataDir, 'tor-exits.txt'))),
    maxUpload: integerSetting(env, 'BOARD_MAX_UPLOAD', 8 * 1024 * 1024, 1024, 1024 ** 3),
    previewEnabled: flagSetting(env, 'BOARD_PREVIEW', true),
    pushEnabled: flagSetting(env, 'BOARD_PUSH', true),
    previewAllow: listSetting(env, 'BOARD_PREVIEW_ALLOW', '').map(checkedCidr),
    previewPorts: listSetting(env, 'BOARD_PREVIEW_PORTS', '80,443').map((p) =>
      checkedInteger('BOARD_PREVIEW_PORTS', p, 1, 65535),
    ),
    youtubeOembed: setting(env, 'BOARD_YOUTUBE_OEMBED', 'https://www.youtube.com/oembed'),
    asnDb: resolve(setting(env, 'BOARD_ASN_DB', bundledAsnDb)),
    scryptLogN: integerSetting(env, 'BOARD_SCRYPT_LOGN', 17, 14, 20),
    // A typo in the webhook address must stop the start, not lose every notification silently.
    notifyUrl: notifyUrl && httpUrlSetting('BOARD_NOTIFY_URL', notifyUrl).href,
    limitsFactor: factorSetting(env, 'BOARD_LIMITS', 1),
    newAccountSeconds: integerSetting(env, 'BOARD_NEW_ACCOUNT_HOURS', 24, 0, 8760) * 3600,
    contact: contactSetting(env),
    metrics: metricsSetting(env),
    workers: workersSetting(env),
    registration: registrationSetting(env),
    registrationQuestion: questionSetting(env),
    registrationSurge: Object.freeze({
      accounts: integerSetting(env, 'BOARD_REGISTRATION_SURGE', defaultSurgeAccounts, 0, 1_000_000),
      windowSeconds: integerSetting(env, 'BOARD_REGISTRATION_SURGE_MINUTES', 60, 1, 1440) * 60,
    }),
    pow: powSetting(env),
    loginPow: flagSetting(env, 'BOARD_LOGIN_POW', true),
    litestream: flagSetting(env, 'BOARD_LITESTREAM', false),
    diskLowBytes: integerSetting(env, 'BOARD_DISK_LOW_MB', 500, 0, 10 ** 7) * 1048576,
    impressionBeacon: flagSetting(env, 'BOARD_IMPRESSION_BEACON', false),
    federation: federationSetting(env),
    federationName: federationNameSetting(env, origin),
  });
}

export const federationModes = ['off', 'allowlist', 'open'] as const;
export type FederationMode = (typeof federationModes)[number];

function federationSetting(env: Record<string, string | undefined>): FederationMode {
  const value = setting(env, 'BOARD_FEDERATION', 'off').toLowerCase();
  if (!(federationModes as readonly string[]).includes(value))
    throw new ConfigError(`BOARD_FEDERATION: "${value}" must be one of ${federationModes.join(', ')}`);
  return value as FederationMode;
}

/** The Group's name shows in other servers' lists: one short line, like BOARD_CONTACT. */
function federationNameSetting(env: Record<string, string | undefined>, origin: string): string {
  const value = setting(env, 'BOARD_FEDERATION_NAME', new URL(origin).host);
  if (/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/.test(value) || [...value].length > 100)
    throw new ConfigError('BOARD_FEDERATION_NAME: must be one line of at most 100 characters');
  return value;
}

export const registrationModes = ['open', 'approval', 'invite', 'closed'] as const;
export type RegistrationMode = (typeof registrationModes)[number];

/**
 * BOARD_REGISTRATION_SURGE's default, accounts an hour. Why 30: a small board sees a few dozen in
 * the hour after a link to it goes round, while the bot waves Lemmy admins reported brought
 * hundreds; 30 lets a launch through and stops a wave at the 31st.
 */
export const defaultSurgeAccounts = 30;

export const defaultRegistrationQuestion =
  'Warum möchtest du hier mitschreiben, und wie hast du von diesem Board erfahren?';
const maxQuestionLength = 500;

function registrationSetting(env: Record<string, string | undefined>): RegistrationMode {
  const value = setting(env, 'BOARD_REGISTRATION', 'open').toLowerCase();
  if (!(registrationModes as readonly string[]).includes(value))
    throw new ConfigError(`BOARD_REGISTRATION: "${value}" must be one of ${registrationModes.join(', ')}`);
  return value as RegistrationMode;
}

function questionSetting(env: Record<string, string | undefined>): string {
  const value = setting(env, 'BOARD_REGISTRATION_QUESTION', defaultRegistrationQuestion);
  if ([...value].length > maxQuestionLength)
    throw new ConfigError(`BOARD_REGISTRATION_QUESTION: longer than ${maxQuestionLength} characters`);
  return value;
}

/**
 * BOARD_POW's own costs: below 100 a challenge costs nothing worth asking for; the upper bound
 * catches a value with a few digits too many.
 */
const powCosts = { min: 100, max: 100_000_000 };

/**
 * BOARD_POW: 0 (off), 1 (the recommended cost, lib/registration/pow.ts) or a cost within powCosts;
 * every refusal lists these values, so one look at the error is enough.
 */
function powSetting(env: Record<string, string | undefined>): number {
  const raw = env.BOARD_POW?.trim();
  if (!raw) return 0;
  const values = `use 0 (off), 1 (the recommended cost) or a cost from ${powCosts.min} to ${powCosts.max}`;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`BOARD_POW: "${raw}" is not a whole number; ${values}`);
  const value = Number(raw);
  if (value > 1 && value < powCosts.min)
    throw new ConfigError(`BOARD_POW: ${value} is too small to cost anything; ${values}`);
  if (value > powCosts.max) throw new ConfigError(`BOARD_POW: ${value} is too large; ${values}`);
  return value;
}

/** Shown in every page's footer: one short line. */
export const maxContactLength = 200;

/** A control character (a pasted line break) stops the start rather than breaking the footer. */
function contactSetting(env: Record<string, string | undefined>): string {
  const value = setting(env, 'BOARD_CONTACT', '');
  if (/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/.test(value))
    throw new ConfigError('BOARD_CONTACT: must be one line of text without control characters');
  if ([...value].length > maxContactLength)
    throw new ConfigError(`BOARD_CONTACT: longer than ${maxContactLength} characters`);
  return value;
}

function setting(env: Record<string, string | undefined>, name: string, fallback: string): string {
  const value = env[name]?.trim();
  return value ? value : fallback;
}

function integerSetting(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name]?.trim();
  return raw ? checkedInteger(name, raw, min, max) : fallback;
}

function checkedInteger(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name}: "${raw}" is not a whole number`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name}: ${value} is outside ${min}–${max}`);
  return value;
}

/** A number ≥ 0, decimals allowed (0.5, 10); at most 1000 so a typo cannot make limits meaningless by accident. */
function factorSetting(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d{1,4}(\.\d{1,6})?$/.test(raw))
    throw new ConfigError(`${name}: "${raw}" is not a number such as 1, 0.5 or 10`);
  const value = Number(raw);
  if (value > 1000) throw new ConfigError(`${name}: ${value} is outside 0–1000`);
  return value;
}

/** A typo in the preview allow-list must stop the start, not silently allow nothing (or more). */
function checkedCidr(raw: string): string {
  if (!parseCidr(raw))
    throw new ConfigError(`BOARD_PREVIEW_ALLOW: "${raw}" is not an address range such as 127.0.0.1/32`);
  return raw;
}

/**
 * One rule for every on/off setting, the one docs/OPERATIONS.md "Settings" states: 1 or 0, or true or false
 * in any letter case. Why so strict: a typo such as "ture" must stop the start, not switch silently.
 */
function flagSetting(env: Record<string, string | undefined>, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = raw.toLowerCase();
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new ConfigError(`${name}: "${raw}" must be 1 or 0 (or true or false)`);
}

/**
 * The metrics listener: off while BOARD_METRICS_PORT is empty; 0 is any free port. Loopback only,
 * whatever is set: the numbers show the board's traffic and load to whoever can reach them, so they
 * are for a scraper on this machine.
 */
function metricsSetting(env: Record<string, string | undefined>): Config['metrics'] {
  const host = setting(env, 'BOARD_METRICS_HOST', '127.0.0.1');
  if (!isLoopbackAddress(host)) {
    throw new ConfigError(
      `BOARD_METRICS_HOST: "${host}" is not a loopback address; the metrics listen on 127.0.0.1 or ::1 only`,
    );
  }
  if (!env.BOARD_METRICS_PORT?.trim()) return undefined;
  return Object.freeze({ port: integerSetting(env, 'BOARD_METRICS_PORT', 0, 0, 65535), host });
}

/** The most BOARD_WORKERS may ask for: each worker holds its own caches (docs/SCALING.md "Memory"). */
export const maxWorkers = 64;

function workersSetting(env: Record<string, string | undefined>): number {
  const raw = env.BOARD_WORKERS?.trim();
  if (!raw) return 1;
  if (raw.toLowerCase() === 'auto') return Math.min(maxWorkers, availableParallelism());
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > maxWorkers) {
    throw new ConfigError(`BOARD_WORKERS: "${raw}" must be a whole number 1–${maxWorkers} or auto`);
  }
  return Number(raw);
}

function listSetting(env: Record<string, string | undefined>, name: string, fallback: string): string[] {
  return setting(env, name, fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function originSetting(raw: string): string {
  return httpUrlSetting('BOARD_ORIGIN', raw).origin;
}

function httpUrlSetting(name: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name}: "${raw}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`${name}: "${raw}" must be http or https`);
  return url;
}
