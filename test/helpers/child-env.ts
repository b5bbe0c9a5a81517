import { fileURLToPath } from 'node:url';

/**
 * V8's compile cache for the tests' child processes (NODE_COMPILE_CACHE): every server and
 * board-admin process compiles the same modules, and with the cache each one after the first
 * reads most of that work from disk. It lives under node_modules, so it outlasts a run and stays
 * out of the tests' temporary folder; Node checks each entry against the source it was made from.
 */
const compileCache = fileURLToPath(new URL('../../node_modules/.cache/board-test-compile', import.meta.url));

/** The environment of a child process: the test process's own less any BOARD_* setting, the compile cache, then `env`. */
export function childEnv(env: Record<string, string> = {}): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !name.startsWith('BOARD_')) result[name] = value;
  return { ...result, NODE_COMPILE_CACHE: compileCache, ...env };
}
