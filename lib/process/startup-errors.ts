import Database from 'better-sqlite3';
import { ConfigError, type Config } from '../config.ts';
import { SchemaTooNewError } from '../db/schema.ts';

/**
 * The one line an operator reads when the server cannot start for a reason they can fix (a bad
 * setting, a busy or privileged port, a host name that does not resolve, an unusable data folder
 * or database); docs/OPERATIONS.md "Settings" promises it. Undefined for anything else: a bug keeps its stack.
 */
export function startupFailure(err: unknown, config?: Pick<Config, 'host' | 'port' | 'dbPath'>): string | undefined {
  if (err instanceof ConfigError) return err.message;
  if (config && err instanceof SchemaTooNewError)
    return `${config.dbPath}: ${err.message}; run the newer code or restore an older backup`;
  if (config && err instanceof Database.SqliteError) return `cannot use the database ${config.dbPath}: ${err.message}`;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (!config || !code) return undefined;
  const { host, port } = config;
  switch (code) {
    case 'EADDRINUSE':
      return `PORT: ${port} on ${host} is already in use (is the board already running?); stop that process or choose another PORT`;
    case 'EACCES':
      return `PORT: no permission to listen on ${port} (ports below 1024 need root); use a port such as 8080 behind nginx or Caddy`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `HOST: "${host}" does not resolve to an address; use an IP address such as 127.0.0.1`;
    case 'EADDRNOTAVAIL':
      return `HOST: ${host} is not an address of this machine; use 127.0.0.1 behind a proxy`;
    default:
      return undefined;
  }
}

export function metricsListenFailure(err: unknown, metrics: NonNullable<Config['metrics']>): string | undefined {
  const { host, port } = metrics;
  switch ((err as NodeJS.ErrnoException | undefined)?.code) {
    case 'EADDRINUSE':
      return `BOARD_METRICS_PORT: ${port} on ${host} is already in use; choose another BOARD_METRICS_PORT (not the board's PORT)`;
    case 'EACCES':
      return `BOARD_METRICS_PORT: no permission to listen on ${port} (ports below 1024 need root); use a port such as 9464`;
    case 'EADDRNOTAVAIL':
    case 'EAFNOSUPPORT':
      return `BOARD_METRICS_HOST: ${host} is not an address of this machine; use 127.0.0.1`;
    default:
      return undefined;
  }
}
